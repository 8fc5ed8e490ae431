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
/// The response has one ``body``: its bytes, or — for a request with ``HTTPRequest/responseStreaming`` set — a
/// stream still arriving while interceptors look at the head. An interceptor that discards a streamed response (to
/// retry, say) just drops it; the transfer stops.
public struct HTTPDataResponse: Sendable {
    /// The status code.
    public var status: Int {
        get { box.fields.status }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.status }
    }
    /// The headers, in the order received (URLSession sorts them by name).
    public var headers: HTTPHeaderFields {
        get { box.fields.headers }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.headers }
    }
    /// The body: read whole (the default), or streamed.
    public var body: ResponseBody {
        get { box.fields.body }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.body }
    }
    /// The URL that answered, after redirects, when the transport knows it.
    public var url: URL? {
        get { box.fields.url }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.url }
    }
    /// Timings and sizes of the exchange, for transports that can measure them.
    public var metrics: TransferMetrics? {
        get { box.fields.metrics }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.metrics }
    }
    /// The fields that came after a body read whole (a chunked body's trailer section, HTTP/2's trailing
    /// headers): never merged into ``headers``, where they could supply a `Location` or a `Retry-After` that the
    /// checks of the head have already passed. Empty when there were none, or the transport cannot read them; a
    /// streamed body has its own, ``ResponseBodyStream/trailers``, once it has ended.
    public var trailers: HTTPHeaderFields {
        get { box.fields.trailers }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.trailers }
    }
    /// How an HTTP cache answered, when one did (see `HTTPCacheInterceptor`); `nil` when no cache was asked.
    public var cacheStatus: CacheStatus? {
        get { box.fields.cacheStatus }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.cacheStatus }
    }

    // One copy-on-write box, as in `HTTPRequest`: a response passes back through every interceptor's async frame
    // (the Performance article, "What a waiting call holds").
    private var box: CopyOnWriteBox<Fields>

    /// A response as a transport or an interceptor makes it.
    public init(
        status: Int, headers: HTTPHeaderFields = [:], body: ResponseBody = .empty, url: URL? = nil,
        metrics: TransferMetrics? = nil, cacheStatus: CacheStatus? = nil
    ) {
        let fields = Fields(
            status: status, headers: headers, body: body, url: url, metrics: metrics, cacheStatus: cacheStatus)
        box = CopyOnWriteBox(fields)
    }

    /// Whether the status is in 200...299.
    public var isSuccessful: Bool { (200...299).contains(status) }
}

extension HTTPDataResponse {
    /// What the `CopyOnWriteBox` holds.
    private struct Fields: Sendable {
        var status: Int
        var headers: HTTPHeaderFields
        var body: ResponseBody
        var url: URL?
        var metrics: TransferMetrics?
        var cacheStatus: CacheStatus?
        var trailers = HTTPHeaderFields()
    }
}
