extension RestingError {
    /// A short name for the failure that never holds a URL, a value or a message: the case's name, a transport
    /// failure's kind (`timedOut`, `tlsFailed`, …) or an HTTP error's status (`503`). It is what OpenTelemetry's
    /// `error.type` attribute asks for, so that logs, metrics and traces can group failures by it.
    ///
    /// ```swift
    /// RestingError.cancelled.errorType  // "cancelled"
    /// ```
    public var errorType: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .invalidPathTemplate: "invalidPathTemplate"
        case .missingPathVariable: "missingPathVariable"
        case .invalidPathVariable: "invalidPathVariable"
        case .invalidHeader: "invalidHeader"
        case .invalidMethod: "invalidMethod"
        case .bodyNotAllowed: "bodyNotAllowed"
        case .encodingFailed: "encodingFailed"
        case .bodyUnreadable: "bodyUnreadable"
        case .transportFailed(let failure): failure.kind.rawValue
        case .httpError(let error): String(error.status)
        case .validationFailed: "validationFailed"
        case .decodingFailed: "decodingFailed"
        case .cancelled: "cancelled"
        case .responseTooLarge: "responseTooLarge"
        case .resumeRefused: "resumeRefused"
        case .downloadFailed: "downloadFailed"
        case .unsupported: "unsupported"
        case .interceptorMisuse: "interceptorMisuse"
        case .offlineStorageFailed: "offlineStorageFailed"
        case .bodyAlreadyConsumed: "bodyAlreadyConsumed"
        case .streamElementTooLarge: "streamElementTooLarge"
        case .shutDown: "shutDown"
        case .requestBodyNotReplayable: "requestBodyNotReplayable"
        }
    }

    /// ``errorType`` for a `RestingError`, and the type's name for any other error: what the logging, metrics and
    /// tracing integrations record as `error.type`.
    package static func errorType(of error: any Error) -> String {
        (error as? RestingError)?.errorType ?? String(describing: type(of: error))
    }
}
