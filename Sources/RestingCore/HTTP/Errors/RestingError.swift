#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every way a RestingKit call can fail, as one type to switch over.
///
/// ```swift
/// do {
///     let post = try await client.perform(request).value.body
/// } catch .httpError(let error) where error.status == 404 {
///     // not found
/// } catch .transportFailed(let failure) where failure.kind == .timedOut {
///     // retry later
/// }
/// ```
///
/// A capability module fails a call with its own error type (`ResilienceError`, `OfflineStorageFailure`,
/// `StreamElementTooLarge`); every one is a ``CallFailure``, named for logs, metrics and spans like these cases.
///
/// Descriptions never include header values or request bodies, which may carry credentials.
@nonexhaustive
public enum RestingError: Error, Sendable, CustomStringConvertible {
    /// The base URL, a path, or the URL built from them is not a valid URL.
    case invalidURL(String, reason: String)
    /// A path template cannot be parsed (an unclosed `{{`, an empty or invalid variable name).
    case invalidPathTemplate(template: String, reason: String)
    /// A variable of the template has no value in the request or in the path-variable provider.
    case missingPathVariable(name: String, template: String)
    /// A path variable's value would change the shape of the URL (empty, `.`, `..`, or an empty segment).
    case invalidPathVariable(name: String, template: String, reason: String)
    /// A header name is not a token or its value holds CR, LF or another control character.
    case invalidHeader(name: String, reason: String)
    /// The method is not a valid HTTP token.
    case invalidMethod(String)
    /// The request has a body but its method (`GET`, `HEAD`) may not carry one.
    case bodyNotAllowed(method: RequestMethod)
    /// The request body could not be encoded with the endpoint's encoding.
    case encodingFailed(reason: String)
    /// The request body could not be read (a missing or unreadable file, a failing stream).
    case bodyUnreadable(reason: String)
    /// No response was received: connect, DNS, TLS, timeout, reset or a malformed reply.
    case transportFailed(TransportError)
    /// The server answered with a status the client does not accept (by default, anything but 2xx).
    case httpError(HTTPError)
    /// A ``ValidationInterceptor`` rule refused the response (a content type the request did not accept, or
    /// a custom check); the whole response is kept.
    case validationFailed(HTTPError, reason: String)
    /// The response body does not decode into the endpoint's response type. The body is kept for diagnosis.
    case decodingFailed(type: String, underlying: any Error, body: Data)
    /// The call was cancelled, through its promise or the task awaiting it.
    case cancelled
    /// The response body exceeded the configured limit and was abandoned.
    case responseTooLarge(limit: Int64)
    /// A download could not continue from its partial file: the server ignored the range or the file changed
    /// since the first bytes were fetched. The partial file has been removed; downloading again starts over.
    case resumeRefused(ResumeRefusal)
    /// A downloaded body could not be written to its file (a full disk, a missing directory).
    case downloadFailed(reason: String)
    /// The transport cannot provide a requested feature on this platform.
    case unsupported(feature: String, transport: String)
    /// An interceptor broke a rule of the chain (for instance called `execution` after it returned).
    case interceptorMisuse(interceptor: String, reason: String)
    /// A streamed response body (``ResponseBodyStream``) was iterated a second time: it can be read once.
    case bodyAlreadyConsumed
    /// The client or transport has been shut down (``RestingClient/shutdown(gracePeriod:)``,
    /// ``HTTPClient/shutdown(gracePeriod:)``): it takes no more calls.
    case shutDown
    /// A single-pass request body (an async sequence that can be iterated once) would have to be sent again — by a
    /// retry, an authentication refresh or a 307/308 redirect — after it began: the call fails instead of sending a
    /// half or empty body. Make the body replayable (``RequestBody/sequence(_:contentLength:iteration:trailers:)`` with
    /// `.multiple`) where resending matters.
    case requestBodyNotReplayable
    /// A `DeadlineInterceptor`'s limit ended the call: which limit, and in which stage.
    case deadlineExceeded(DeadlineExceeded)

    /// What the failure says, without a header value or a body.
    public var description: String { parts.description }

    /// The case's name and its description, in one list of the cases: ``errorType`` and ``description`` both read it.
    var parts: (name: String, description: String) {
        switch self {
        case .invalidURL(let url, let reason): ("invalidURL", "invalid URL '\(url)': \(reason)")
        case .invalidPathTemplate(let template, let reason):
            ("invalidPathTemplate", "invalid path template '\(template)': \(reason)")
        case .missingPathVariable(let name, let template):
            ("missingPathVariable", "missing path variable '\(name)' for template '\(template)'")
        case .invalidPathVariable(let name, let template, let reason):
            ("invalidPathVariable", "invalid value for path variable '\(name)' in template '\(template)': \(reason)")
        case .invalidHeader(let name, let reason):
            ("invalidHeader", "invalid header '\(name.debugDescription)': \(reason)")
        case .invalidMethod(let method): ("invalidMethod", "invalid HTTP method \(method.debugDescription)")
        case .bodyNotAllowed(let method): ("bodyNotAllowed", "a \(method) request cannot carry a body")
        case .encodingFailed(let reason): ("encodingFailed", "request encoding failed: \(reason)")
        case .bodyUnreadable(let reason): ("bodyUnreadable", "request body could not be read: \(reason)")
        case .transportFailed(let failure): ("transportFailed", "transport failed: \(failure)")
        case .httpError(let error): ("httpError", error.description)
        case .validationFailed(let error, let reason):
            ("validationFailed", "validation failed for \(error.description): \(reason)")
        case .decodingFailed(let type, let underlying, let body):
            ("decodingFailed", "could not decode \(type) from a \(body.count)-byte body: \(underlying)")
        case .cancelled: ("cancelled", "cancelled")
        case .responseTooLarge(let limit): ("responseTooLarge", "response body larger than the \(limit)-byte limit")
        case .resumeRefused(let refusal): ("resumeRefused", "the download cannot resume: \(refusal)")
        case .downloadFailed(let reason): ("downloadFailed", "download failed: \(reason)")
        case .unsupported(let feature, let transport): ("unsupported", "\(feature) is not supported by \(transport)")
        case .interceptorMisuse(let interceptor, let reason):
            ("interceptorMisuse", "interceptor \(interceptor) \(reason)")
        case .bodyAlreadyConsumed:
            ("bodyAlreadyConsumed", "the streamed response body was already read (it can be read once)")
        case .shutDown: ("shutDown", "the client has been shut down: it takes no more calls")
        case .requestBodyNotReplayable:
            (
                "requestBodyNotReplayable",
                "the request body can be sent once and was already sent: it cannot be sent again (retry, refresh, redirect)"
            )
        case .deadlineExceeded(let exceeded): ("deadlineExceeded", exceeded.description)
        }
    }
}
