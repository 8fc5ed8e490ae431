#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A successful response with its body decoded as the endpoint's response type.
public struct RestingResponse<Body: Sendable>: Sendable {
    /// The status code.
    public var status: Int { head.status }
    /// The headers, in the order received.
    public var headers: HTTPHeaderFields { head.headers }
    /// The URL that answered, after redirects, when the transport knows it.
    public var url: URL? { head.url }
    /// What the transport measured, when it measures.
    public var metrics: TransferMetrics? { head.metrics }
    /// How an HTTP cache answered, when one did; `nil` when no cache was asked.
    public var cacheStatus: CacheStatus? { head.cacheStatus }
    /// The entity tag of what the body holds (`ETag`), for a conditional request that follows
    /// (``RestingRequest/ifChanged(since:)``, ``RestingRequest/ifMatch(_:)``).
    public var etag: String? { head.headers["ETag"] }
    /// ``etag``'s opaque value, without its quotes or its weak `W/` prefix: what an API that versions by its entity
    /// tag takes back in a query (Kinto's `_since=`).
    public var etagValue: String? {
        guard let etag else { return nil }
        var tag = Substring(etag)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.first == "\"", tag.last == "\"" { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }
    /// When what the body holds last changed (`Last-Modified`, as the server wrote it).
    public var lastModified: String? { head.headers["Last-Modified"] }
    /// The fields that came after the body (a chunked body's trailer section, HTTP/2's trailing headers), never
    /// merged into ``headers``; empty when there were none or the transport cannot read them. A streamed body's come
    /// with its stream, once it has ended (``ResponseBodyStream/trailers``).
    public var trailers: HTTPHeaderFields { head.trailers }

    /// Everything but the body, behind one reference: a response is held in the frame of every async function it
    /// passes through — and in its call's task, and in a streamed call's reader for as long as the stream is open —
    /// so it stays a word and its body wide.
    private let head: ResponseHead
    // After `head`, whose offset is then known without this type's metadata, which every response made would look up.
    /// The decoded body.
    public let body: Body

    /// A response with a decoded body (what tests and interceptors that answer themselves build).
    // Always inlined: a call of it takes the response's type metadata, which the pipeline's code, generic over the
    // body's type, looks up first — and has looked up already to return the response.
    @inline(__always)
    public init(
        status: Int, headers: HTTPHeaderFields, body: Body, url: URL? = nil, metrics: TransferMetrics? = nil,
        cacheStatus: CacheStatus? = nil, trailers: HTTPHeaderFields = [:]
    ) {
        head = ResponseHead(
            status: status, headers: headers, url: url, metrics: metrics, cacheStatus: cacheStatus, trailers: trailers)
        self.body = body
    }
}

/// A ``RestingResponse``'s fields but its body: outside the generic type, so that making one needs no generic
/// metadata.
private final class ResponseHead: Sendable {
    let status: Int
    let headers: HTTPHeaderFields
    let url: URL?
    let metrics: TransferMetrics?
    let cacheStatus: CacheStatus?
    let trailers: HTTPHeaderFields

    init(
        status: Int, headers: HTTPHeaderFields, url: URL?, metrics: TransferMetrics?, cacheStatus: CacheStatus?,
        trailers: HTTPHeaderFields
    ) {
        self.status = status
        self.headers = headers
        self.url = url
        self.metrics = metrics
        self.cacheStatus = cacheStatus
        self.trailers = trailers
    }
}
