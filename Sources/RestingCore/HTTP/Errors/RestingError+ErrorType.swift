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
        case .transportFailed(let failure): failure.kind.rawValue
        case .httpError(let error): String(error.status)
        default: parts.name
        }
    }
}
