#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as a transport received it: status, headers, body bytes, and what the transport measured.
///
/// Any status is a response here (a 500 is not an error yet); the client checks the status after the
/// interceptor chain, so that interceptors can retry or recover on any of them.
///
/// A response to a request with ``HTTPRequest/responseStreaming`` set carries its body in ``bodyStream``
/// instead, still arriving while interceptors look at the head: ``body`` is then empty. An interceptor that
/// discards such a response (to retry, say) just drops it; the transfer stops.
public struct HTTPDataResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in the order received (URLSession sorts them by name).
    public var headers: HTTPHeaders
    /// The whole body, for a buffered response (the default).
    public var body: Data
    /// The body as it arrives, for a streamed response; `nil` for a buffered one.
    public var bodyStream: ResponseBodyStream?
    /// The URL that answered, after redirects, when the transport knows it.
    public var url: URL?
    /// Timings and sizes of the exchange, for transports that can measure them.
    public var metrics: TransferMetrics?
    /// How an HTTP cache answered, when one did (see `HTTPCacheInterceptor`); `nil` when no cache was asked.
    public var cacheStatus: CacheStatus?

    /// A response as a transport or an interceptor makes it.
    public init(
        status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil,
        metrics: TransferMetrics? = nil, bodyStream: ResponseBodyStream? = nil, cacheStatus: CacheStatus? = nil
    ) {
        self.cacheStatus = cacheStatus
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.url = url
        self.metrics = metrics
    }

    /// Whether the status is in 200...299.
    public var isSuccessful: Bool { (200...299).contains(status) }
}
