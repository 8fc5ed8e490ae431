#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a typed ``RestingRequest`` into the ``HTTPRequest`` that goes down the interceptor chain.
/// ``RestingRequestConverter`` is the standard one; implement this to build requests another way.
public protocol RequestConverter: Sendable {
    /// The ``HTTPRequest`` for `request` against `baseUrl`, or the typed error that keeps it from being sent.
    func toHTTPRequest<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String
    ) throws(RestingError) -> HTTPRequest
}
