import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private HTTP cache (RFC 9111) as an interceptor: fresh responses are answered without the network, stale
/// ones revalidated with `If-None-Match` / `If-Modified-Since`, and every answer says how it was made
/// (``/RestingCore/HTTPDataResponse/cacheStatus``).
///
/// ```swift
/// let cache = HTTPCacheInterceptor(store: try DiskCacheStore(directory: cachesURL.appendingPathComponent("http")))
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, networkInterceptors: [cache])
/// ```
///
/// Put it in `networkInterceptors` (each redirect hop is then cached under its own URL) or last among
/// `interceptors`. What it does:
/// - **Stores** `GET` responses that allow it: not `no-store` (request or response), not `Vary: *`, not a
///   partial `206`, with a lifetime (`max-age`, `Expires`, or a heuristic 10 % of the age of `Last-Modified`
///   for the statuses cacheable by default) or a validator to revalidate with; bodies up to
///   `maximumEntrySize`. Streamed bodies are stored once the reader has taken them whole.
/// - **Serves** a stored response while fresh, unless the request or the response says `no-cache`, or the
///   request's `max-age` / `min-fresh` ask for fresher; a request's `max-stale` accepts a stale one
///   unless the response says `must-revalidate`. `Vary` is honoured: a request with other values for the
///   named headers is not served another's variant (one variant per URL is kept, the latest, as browsers do).
/// - **Revalidates** a stale (or `no-cache`) response that has an `ETag` or `Last-Modified`; a `304` updates
///   the stored headers and answers with the stored body (``/RestingCore/CacheStatus/revalidated``). A request that sets
///   its own validators is passed on untouched.
/// - **Invalidates** the URL (and its `Location` / `Content-Location` on the same origin) when an unsafe method
///   (`POST`, `PUT`, `PATCH`, `DELETE`, …) to it succeeds.
/// - **Never crosses a credential.** A response is stored under a key that holds a digest of the credentials
///   its request carried (``key(for:)-(HTTPRequest)``: `Authorization`, `Cookie`, every field that carries one), so it is
///   never served to a request with other credentials or none. A store on disk keeps no response to a
///   credentialed request unless it opts in (``HTTPCacheStore/storesCredentialedResponses``); nothing stored
///   holds a credential (`Vary` on a credential header keeps a digest of its value), `Set-Cookie` (a hit never
///   sets a cookie again, a `304`'s neither) or a sensitive response header. Put the cache after whatever adds
///   credentials (it sees only the headers a request has when it reaches it).
/// - A live event stream (`text/event-stream`) is never stored, and a reconnection (`Last-Event-ID`) never
///   answered from the cache.
/// - `only-if-cached` (or ``/RestingCore/CachePolicy/returnCacheDontLoad``) with nothing usable answers a `504`
///   (``/RestingCore/CacheStatus/unavailable``), as RFC 9111 §5.2.1.7 says.
/// - **`stale-if-error`** (RFC 5861): when the server cannot be reached or answers 500, 502, 503 or 504, a
///   stale response is served within the allowance the response or request gives, or `staleIfError`
///   otherwise — never one marked `must-revalidate` or `no-cache` (``/RestingCore/CacheStatus/staleOnError``).
/// - A request's ``/RestingCore/RequestAttributes/cachePolicy`` changes all this for one call (``/RestingCore/CachePolicy``).
public struct HTTPCacheInterceptor: PlacedInterceptor {
    /// Where responses are kept: a ``MemoryCacheStore``, a ``DiskCacheStore`` or your own.
    public let store: any HTTPCacheStore
    /// How stale a response may be served when the server fails and neither it nor the request set
    /// `stale-if-error`; `nil` (the default) serves none then.
    public var staleIfError: Duration?
    /// The largest body stored; larger ones pass through.
    public var maximumEntrySize: Int
    private let now: @Sendable () -> Date

    /// A cache keeping responses in `store`.
    ///
    /// - Parameters:
    ///   - store: Where responses are kept.
    ///   - staleIfError: How stale a response may be served when the server fails; `nil` for none.
    ///   - maximumEntrySize: The largest body stored, 4 MiB by default.
    ///   - now: The clock ages are measured on (a test's, to let time pass without waiting).
    public init(
        store: any HTTPCacheStore, staleIfError: Duration? = nil, maximumEntrySize: Int = 4 << 20,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.staleIfError = staleIfError
        self.maximumEntrySize = maximumEntrySize
        self.now = now
    }

    /// The key an anonymous request's response is stored under: its URL.
    public static func key(for url: URL) -> String { url.absoluteString }

    /// The key `request`'s response is stored under: its URL, and for a request that carries credentials a
    /// keyed digest of them (HMAC-SHA256 under a key made per process, never the credentials themselves, nor a plain
    /// digest a guessed password could be checked against), so that each identity has its own entries.
    public static func key(for request: HTTPRequest) -> String {
        key(for: request.url, credentials: CredentialDigest(of: request.headers))
    }

    private static func key(for url: URL, credentials: CredentialDigest?) -> String {
        guard let credentials else { return key(for: url) }
        return key(for: url) + " credentials:" + credentials.hex
    }

    /// The methods that change nothing on the server (RFC 9110 §9.2.1); any other invalidates its URL.
    static let safeMethods: Set<RequestMethod> = [.get, .head, .options, .trace]

    /// Answers from the cache when it may, revalidates when it must, and stores what the network returns.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        guard request.method == .get, request.downloadTarget == nil, request.upgrade == nil,
            !request.headers.contains("Last-Event-ID")
        else {
            let response = try await execution(request)
            if !Self.safeMethods.contains(request.method), (200..<400).contains(response.status) {
                await invalidate(after: response, to: request)
            }
            return response
        }
        let policy = request.attributes.cachePolicy
        let requestDirectives = CacheControl(request.headers)
        let credentials = CredentialDigest(of: request.headers)
        let key = Self.key(for: request.url, credentials: credentials)
        let storable = credentials == nil || store.storesCredentialedResponses
        let stored =
            policy == .reloadIgnoringCache || requestDirectives.noStore
            ? nil : await withStore { $0.response(for: key) }.flatMap { $0.matchesVary(of: request) ? $0 : nil }
        let requestTime = now()

        if let stored {
            let freshness = CacheFreshness(stored, now: requestTime)
            if policy == .returnCacheElseLoad || policy == .returnCacheDontLoad
                || freshness.satisfies(requestDirectives)
            {
                return answer(stored, for: request, status: .hit, age: freshness.age)
            }
        }
        if policy == .returnCacheDontLoad || requestDirectives.onlyIfCached {
            return HTTPDataResponse(
                status: 504, headers: ["Content-Length": "0"],
                body: request.responseStreaming == nil ? .empty : ResponseBody(ResponseBodyStream(Data())),
                url: request.url, cacheStatus: .unavailable)
        }

        let validated = stored.flatMap { conditional(request, validating: $0) }
        let response: HTTPDataResponse
        do {
            response = try await execution(validated ?? request)
        } catch let error as RestingError {
            guard case .transportFailed = error,
                let stale = servableOnError(stored, for: request, requestDirectives, at: requestTime)
            else { throw error }
            return stale
        }
        if [500, 502, 503, 504].contains(response.status),
            let stale = servableOnError(stored, for: request, requestDirectives, at: requestTime)
        {
            return stale
        }
        let responseTime = now()
        if response.status == 304, validated != nil, let stored {
            let updated = merging(response, into: stored, requestTime: requestTime, responseTime: responseTime)
            if storable, isStorable(updated.headers, status: updated.status, requestDirectives) {
                await withStore { $0.store(updated, for: key) }
            }
            var revalidated = answer(updated, for: request, status: .revalidated, age: nil)
            // The cookies this 304 set now reach the interceptors above (a cookie jar); they are never stored.
            for cookie in response.headers.values(for: "Set-Cookie") {
                revalidated.headers.add(name: "Set-Cookie", value: cookie)
            }
            return revalidated
        }
        var fresh = response
        fresh.cacheStatus = .miss
        guard storable, isStorable(response.headers, status: response.status, requestDirectives) else { return fresh }
        let varying = CachedResponse.varyingHeaders(of: request, names: CachedResponse.varyNames(response.headers))
        let storedHeaders = Self.storableHeaders(response.headers)
        let entry: @Sendable (Data) -> CachedResponse = { [storedHeaders] body in
            CachedResponse(
                url: request.url, status: response.status, headers: storedHeaders, body: body,
                requestTime: requestTime, responseTime: responseTime, varyingRequestHeaders: varying)
        }
        if let stream = response.body.stream {
            fresh.body = ResponseBody(storing(stream, key: key, entry: entry))
        } else if let body = response.body.data, body.count <= maximumEntrySize {
            await withStore { $0.store(entry(body), for: key) }
        }
        return fresh
    }

    /// `stored` as a response to `request`, with its `Age` (RFC 9111 §5.1) when served without the server.
    private func answer(_ stored: CachedResponse, for request: HTTPRequest, status: CacheStatus, age: TimeInterval?)
        -> HTTPDataResponse
    {
        var headers = stored.headers
        if let age { headers.replaceOrAdd(name: "Age", value: String(Int(min(age, TimeInterval(Int32.max))))) }
        let streamed = request.responseStreaming != nil
        return HTTPDataResponse(
            status: stored.status, headers: headers,
            body: streamed ? ResponseBody(ResponseBodyStream(stored.body)) : ResponseBody(stored.body),
            url: stored.url, cacheStatus: status)
    }

    /// `request` with the stored response's validators, or `nil` when it has none or the caller set its own.
    private func conditional(_ request: HTTPRequest, validating stored: CachedResponse) -> HTTPRequest? {
        guard !request.headers.contains("If-None-Match"), !request.headers.contains("If-Modified-Since") else {
            return nil
        }
        var conditional = request
        if let etag = stored.headers["ETag"] { conditional.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = stored.headers["Last-Modified"] {
            conditional.headers.add(name: "If-Modified-Since", value: lastModified)
        }
        return conditional.headers.count == request.headers.count ? nil : conditional
    }

    /// The stored response with the headers of the `304` that confirmed it (RFC 9111 §3.2).
    private func merging(
        _ notModified: HTTPDataResponse, into stored: CachedResponse, requestTime: Date, responseTime: Date
    ) -> CachedResponse {
        var updated = stored
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
        let confirming = Self.storableHeaders(notModified.headers)
        for name in Set(confirming.map { $0.name.lowercased() }) where !kept.contains(name) {
            updated.headers.remove(name: name)
            for value in confirming.values(for: name) { updated.headers.add(name: name, value: value) }
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// `headers` without what a stored response must never hold: `Set-Cookie` (a hit would set a cookie again,
    /// bringing back a session the user has since left) and every other field that carries a credential.
    private static func storableHeaders(_ headers: HTTPHeaderFields) -> HTTPHeaderFields {
        var storable = headers
        storable.removeCredentials()
        return storable
    }

    private func isStorable(_ headers: HTTPHeaderFields, status: Int, _ requestDirectives: CacheControl) -> Bool {
        let directives = CacheControl(headers)
        // A live event stream is not a representation: a reconnection must reach the server.
        guard !(headers["Content-Type"] ?? "").lowercased().hasPrefix("text/event-stream") else { return false }
        guard !directives.noStore, !requestDirectives.noStore, (200..<600).contains(status), status != 206,
            status != 304,
            !CachedResponse.varyNames(headers).contains("*")
        else { return false }
        return directives.maxAge != nil || headers.contains("Expires") || headers.contains("ETag")
            || headers.contains("Last-Modified") && CacheFreshness.heuristicallyCacheable.contains(status)
    }

    private func servableOnError(
        _ stored: CachedResponse?, for request: HTTPRequest, _ requestDirectives: CacheControl, at now: Date
    ) -> HTTPDataResponse? {
        guard let stored else { return nil }
        let freshness = CacheFreshness(stored, now: now)
        guard freshness.servableOnError(requestDirectives, fallback: staleIfError) else { return nil }
        return answer(stored, for: request, status: .staleOnError, age: freshness.age)
    }

    /// Forgets what an unsafe method to `request.url` made stale (RFC 9111 §4.4).
    private func invalidate(after response: HTTPDataResponse, to request: HTTPRequest) async {
        // The anonymous entry and, for a credentialed request, its own identity's.
        var keys = [Self.key(for: request.url)]
        if case let own = Self.key(for: request), own != keys[0] { keys.append(own) }
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name],
                let url = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Origin.same(url, request.url)
            else { continue }
            keys.append(Self.key(for: url))
        }
        await withStore { [keys] store in
            for key in keys { store.removeResponse(for: key) }
        }
    }

    /// Runs `access` on the store: on the global concurrent executor when the store blocks on I/O, since this
    /// chain may run on a transport's thread, which every other transfer waits on while it is busy.
    private func withStore<Value: Sendable>(_ access: @Sendable (any HTTPCacheStore) -> Value) async -> Value {
        guard store.performsBlockingIO else { return access(store) }
        return await withTaskExecutorPreference(globalConcurrentExecutor) { access(store) }
    }

    /// `stream`, storing its body once the reader has taken it whole (and within `maximumEntrySize`): the store
    /// is called by the task that reads the stream to its end.
    private func storing(_ stream: ResponseBodyStream, key: String, entry: @escaping @Sendable (Data) -> CachedResponse)
        -> ResponseBodyStream
    {
        let collected = Locked<Data?>(Data())
        let limit = maximumEntrySize
        return stream.observed(
            onChunk: { chunk in
                collected.withLock { body in
                    if let count = body?.count, count + chunk.count <= limit {
                        body?.append(chunk)
                    } else {
                        body = nil  // too large to keep: stop collecting
                    }
                }
            },
            onEnd: { [store] error in
                guard error == nil, let body = collected.withLock({ $0 }) else { return }
                store.store(entry(body), for: key)
            })
    }
}

extension HTTPCacheInterceptor {
    /// Rank 2 of the credentials and cache order: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "credentials and cache", rank: 2, list: .either, name: "HTTPCacheInterceptor")
    }
}
