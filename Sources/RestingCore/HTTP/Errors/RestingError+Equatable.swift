#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPError: Equatable {
    /// The same status, headers, body and URL.
    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.url == rhs.url
    }
}

extension RestingError: Equatable {
    /// The same case with equal values — so that a test reads `#expect(throws: RestingError.cancelled) { … }`.
    /// Two ``decodingFailed(type:underlying:body:)`` are equal when their types, bodies and underlying errors'
    /// descriptions are (an `any Error` has no equality of its own).
    public static func == (lhs: RestingError, rhs: RestingError) -> Bool {
        switch (lhs, rhs) {
        case (
            .decodingFailed(let type, let underlying, let body),
            .decodingFailed(let otherType, let other, let otherBody)
        ):
            type == otherType && body == otherBody && String(describing: underlying) == String(describing: other)
        case (.httpError(let error), .httpError(let other)): error == other
        case (.validationFailed(let error, let reason), .validationFailed(let other, let otherReason)):
            error == other && reason == otherReason
        case (.transportFailed(let failure), .transportFailed(let other)): failure == other
        case (.resumeRefused(let refusal), .resumeRefused(let other)): refusal == other
        case (.bodyNotAllowed(let method), .bodyNotAllowed(let other)): method == other
        default:
            // Every other case carries strings and numbers only, all in its description, which names the case.
            lhs.errorType == rhs.errorType && lhs.description == rhs.description
        }
    }
}
