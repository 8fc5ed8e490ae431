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
    public var status: Int {
        get { storage.status }
        _modify { yield &uniqueStorage().status }
    }
    /// The headers, in the order received (URLSession sorts them by name).
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &uniqueStorage().headers }
    }
    /// The whole body, for a buffered response (the default).
    public var body: Data {
        get { storage.body }
        _modify { yield &uniqueStorage().body }
    }
    /// The body as it arrives, for a streamed response; `nil` for a buffered one.
    public var bodyStream: ResponseBodyStream? {
        get { storage.bodyStream }
        _modify { yield &uniqueStorage().bodyStream }
    }
    /// The URL that answered, after redirects, when the transport knows it.
    public var url: URL? {
        get { storage.url }
        _modify { yield &uniqueStorage().url }
    }
    /// Timings and sizes of the exchange, for transports that can measure them.
    public var metrics: TransferMetrics? {
        get { storage.metrics }
        _modify { yield &uniqueStorage().metrics }
    }
    /// How an HTTP cache answered, when one did (see `HTTPCacheInterceptor`); `nil` when no cache was asked.
    public var cacheStatus: CacheStatus? {
        get { storage.cacheStatus }
        _modify { yield &uniqueStorage().cacheStatus }
    }

    // One copy-on-write box, as in `HTTPRequest`: a response passes back through every interceptor's async
    // frame, and its 203 bytes of fields (the metrics alone 146) there cost each call malloc'ed frame memory.
    private var storage: Storage

    /// A response as a transport or an interceptor makes it.
    public init(
        status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil,
        metrics: TransferMetrics? = nil, bodyStream: ResponseBodyStream? = nil, cacheStatus: CacheStatus? = nil
    ) {
        storage = Storage(
            status: status, headers: headers, body: body, bodyStream: bodyStream, url: url, metrics: metrics,
            cacheStatus: cacheStatus)
    }

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Whether the status is in 200...299.
    public var isSuccessful: Bool { (200...299).contains(status) }
}

extension HTTPDataResponse {
    // Mutated only through `uniqueStorage()`, that is while no other response shares it: a shared box is never
    // written, which is what makes it safe to send. Its fields skip the runtime's exclusivity check (one per
    // read, otherwise): every access goes through the response's own accessors, so the compiler's static check
    // of the response value already rules out overlapping ones.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var status: Int
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: Data
        @exclusivity(unchecked) var bodyStream: ResponseBodyStream?
        @exclusivity(unchecked) var url: URL?
        @exclusivity(unchecked) var metrics: TransferMetrics?
        @exclusivity(unchecked) var cacheStatus: CacheStatus?

        init(
            status: Int, headers: HTTPHeaders, body: Data, bodyStream: ResponseBodyStream?, url: URL?,
            metrics: TransferMetrics?, cacheStatus: CacheStatus?
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyStream = bodyStream
            self.url = url
            self.metrics = metrics
            self.cacheStatus = cacheStatus
        }

        func copy() -> Storage {
            Storage(
                status: status, headers: headers, body: body, bodyStream: bodyStream, url: url, metrics: metrics,
                cacheStatus: cacheStatus)
        }
    }
}
