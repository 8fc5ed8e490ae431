/// A failure a call can end with, named for logs, metrics and spans: ``RestingError``, and each capability module's
/// own error type (a resilience link's refusal, a full offline store, a streamed line past its limit).
///
/// The logging, metrics and tracing integrations record any error's ``errorType`` as OpenTelemetry's `error.type`,
/// and the event stream's ``CallEvent/Kind/callFailed(errorType:message:)`` carries it; an error that is not a
/// `CallFailure` is named by its type. A capability of your own conforms its error type, and is named like ours:
///
/// ```swift
/// struct QuotaExhausted: CallFailure {
///     let quota: String
///     var errorType: String { "quotaExhausted" }
///     var description: String { "the quota '\(quota)' is exhausted" }
/// }
/// ```
public protocol CallFailure: Error, Sendable, CustomStringConvertible {
    /// A short name for the failure that never holds a URL, a value or a message — what metrics and traces group
    /// failures by.
    var errorType: String { get }
}

extension RestingError: CallFailure {}

extension CallFailure {
    /// ``errorType`` for a `CallFailure`, and the type's name for any other error: what the logging, metrics and
    /// tracing integrations record as `error.type`.
    package static func errorType(of error: any Error) -> String {
        (error as? any CallFailure)?.errorType ?? String(describing: type(of: error))
    }
}
