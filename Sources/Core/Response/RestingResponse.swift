#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A successful response with its body decoded as the endpoint's response type.
public struct RestingResponse<Body: Sendable>: Sendable {
    /// The status code.
    public let status: Int
    /// The headers, in the order received.
    public let headers: HTTPHeaderFields
    /// The decoded body.
    public let body: Body
    /// The URL that answered, after redirects, when the transport knows it.
    public let url: URL?
    /// What the transport measured, when it measures.
    public let metrics: TransferMetrics?
    /// How an HTTP cache answered, when one did; `nil` when no cache was asked.
    public let cacheStatus: CacheStatus?

    /// A response with a decoded body (what tests and interceptors that answer themselves build).
    public init(
        status: Int, headers: HTTPHeaderFields, body: Body, url: URL? = nil, metrics: TransferMetrics? = nil,
        cacheStatus: CacheStatus? = nil
    ) {
        self.cacheStatus = cacheStatus
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.metrics = metrics
    }
}
