import Foundation
import RestingTestSupport
import Testing

@testable import RestingCache
@testable import RestingCookies
@testable import RestingCore
@testable import RestingStreaming

/// A server for cache tests: one resource per path, with the caching headers a test gives it, answering
/// conditional requests with 304 when the validator matches, and counting what reached it.
final class CacheOrigin: Sendable {
    struct Seen: Sendable {
        let method: RequestMethod
        let path: String
        let conditional: Bool
    }
    private let state = Locked<(version: [String: Int], seen: [Seen])>(([:], []))
    let headers: @Sendable (String) -> HTTPHeaderFields
    let failure = Locked<RestingError?>(nil)
    let status = Locked(200)

    init(headers: @escaping @Sendable (String) -> HTTPHeaderFields) { self.headers = headers }

    var seen: [Seen] { state.withLock { $0.seen } }
    var transport: ClosureHTTPClient { ClosureHTTPClient { try self.answer($0) } }

    func answer(_ request: HTTPRequest) throws -> HTTPDataResponse {
        if let failure = failure.withLock({ $0 }) { throw failure }
        let path = request.url.path
        let conditional = request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since")
        let version = state.withLock { state in
            state.seen.append(Seen(method: request.method, path: path, conditional: conditional))
            if request.method != .get { state.version[path, default: 1] += 1 }
            return state.version[path, default: 1]
        }
        var headers = self.headers(path)
        headers.replaceOrAdd(name: "ETag", value: "\"v\(version)\"")
        let status = status.withLock { $0 }
        if status == 200, request.headers["If-None-Match"] == "\"v\(version)\"" {
            headers.add(name: "X-Revalidated", value: "yes")
            return HTTPDataResponse(status: 304, headers: headers, url: request.url)
        }
        let language = request.headers["Accept-Language"].map { " \($0)" } ?? ""
        return HTTPDataResponse(
            status: status, headers: headers, body: ResponseBody(Data("\(path) v\(version)\(language)".utf8)),
            url: request.url)
    }
}

@Suite("HTTP cache")
struct HTTPCacheTests {
    let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    func cache(_ store: any HTTPCacheStore = MemoryCacheStore(), staleIfError: Duration? = nil) -> HTTPCacheInterceptor
    {
        HTTPCacheInterceptor(store: store, staleIfError: staleIfError, now: { [clock] in clock.withLock { $0 } })
    }

    func client(_ origin: CacheOrigin, _ cache: HTTPCacheInterceptor) -> RestingClient {
        RestingClient(baseUrl: baseURL, httpClient: origin.transport, interceptors: [cache])
    }

    func get(
        _ client: RestingClient, _ path: String, headers: HTTPHeaderFields = [:], policy: CachePolicy = .useProtocol
    )
        async throws -> RestingResponse<Data>
    {
        var request = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query), headers: headers)
        request.attributes.cachePolicy = policy
        return try await client.perform(request).value
    }

    func text(_ response: RestingResponse<Data>) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test("Cache-Control directives are read from every field, quoted values and unknown directives included")
    func directives() {
        let parsed = CacheControl(
            HTTPHeaderFields([
                ("Cache-Control", #"max-age=60, no-cache="Set-Cookie, X-Y", private"#),
                ("cache-control", "MUST-REVALIDATE, max-stale, x-ext=\"a,b\""),
            ]))
        #expect(parsed.maxAge == 60 && parsed.noCache && parsed.mustRevalidate && parsed.maxStale == Int.max)
        #expect(
            CacheControl(HTTPHeaderFields([("Cache-Control", "max-age=-1, max-age=abc")])).maxAge == nil,
            "a malformed number ignores its directive")
        #expect(CacheControl(HTTPHeaderFields([("Pragma", "no-cache")])).noCache)
        #expect(
            CacheControl(HTTPHeaderFields([("Cache-Control", "max-age=99999999999999999999999")])).maxAge == Int.max)
    }

    @Test("freshness: max-age over Expires, Age and the response delay counted, a heuristic from Last-Modified")
    func freshness() {
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        func stored(_ headers: HTTPHeaderFields, status: Int = 200) -> CachedResponse {
            CachedResponse(
                url: URL(string: "https://h.example/")!, status: status, headers: headers, body: Data(),
                requestTime: received.addingTimeInterval(-2), responseTime: received)
        }
        let date = HTTPDate.format(received)
        let maxAge = CacheFreshness(
            stored(["Date": date, "Cache-Control": "max-age=100", "Expires": HTTPDate.format(received + 5)]),
            now: received + 50)
        #expect(maxAge.lifetime == 100 && maxAge.age == 52 && maxAge.isFresh, "age: 2 s in flight, 50 s resident")
        let aged = CacheFreshness(
            stored(["Date": date, "Age": "90", "Cache-Control": "max-age=100"]), now: received + 10)
        #expect(aged.age == 102 && !aged.isFresh)
        let expires = CacheFreshness(stored(["Date": date, "Expires": HTTPDate.format(received + 30)]), now: received)
        #expect(expires.lifetime == 30)
        #expect(
            CacheFreshness(stored(["Date": date, "Expires": "0"]), now: received).lifetime == 0,
            "an invalid Expires is in the past")
        let heuristic = CacheFreshness(
            stored(["Date": date, "Last-Modified": HTTPDate.format(received - 1000)]), now: received)
        #expect(heuristic.lifetime == 100, "10 % of the time since it was modified")
        #expect(
            CacheFreshness(
                stored(["Date": date, "Last-Modified": HTTPDate.format(received - 1000)], status: 302), now: received
            ).lifetime == 0)
    }

    @Test("a fresh response is served with zero requests and its Age; the first answer was a miss")
    func freshHit() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=60"] }
        let client = client(origin, cache())
        let first = try await get(client, "/a")
        #expect(first.cacheStatus == .miss)
        clock.withLock { $0 += 30 }
        let second = try await get(client, "/a")
        #expect(text(second) == "/a v1" && second.cacheStatus == .hit)
        #expect(second.headers["Age"] == "30")
        #expect(origin.seen.count == 1)
    }

    @Test("a stale response is revalidated: one conditional request, a 304, the stored body with the 304's headers")
    func revalidation() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=10"] }
        let client = client(origin, cache())
        _ = try await get(client, "/a")
        clock.withLock { $0 += 11 }
        let revalidated = try await get(client, "/a")
        #expect(text(revalidated) == "/a v1" && revalidated.status == 200 && revalidated.cacheStatus == .revalidated)
        #expect(revalidated.headers["X-Revalidated"] == "yes")
        #expect(origin.seen.map(\.conditional) == [false, true])
        clock.withLock { $0 += 5 }
        #expect(try await get(client, "/a").cacheStatus == .hit, "the 304 refreshed the stored response")
        #expect(origin.seen.count == 2)
    }

    @Test("no-cache and must-revalidate responses are checked with the server each time (or once stale)")
    func noCache() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "no-cache"] }
        let client = client(origin, cache())
        _ = try await get(client, "/a")
        #expect(try await get(client, "/a").cacheStatus == .revalidated)
        var request = RestingRequest(
            endpoint: Endpoint<Nothing, Data>(.get, "/a", encoding: .query), headers: ["Cache-Control": "max-stale"])
        request.attributes.cachePolicy = .useProtocol
        #expect(try await client.perform(request).value.cacheStatus == .revalidated, "max-stale does not beat no-cache")
        #expect(origin.seen.map(\.conditional) == [false, true, true])
    }

    @Test("Vary: a request with another value for the named header is not served the stored variant")
    func vary() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=60", "Vary": "Accept-Language"] }
        let client = client(origin, cache())
        #expect(text(try await get(client, "/a", headers: ["Accept-Language": "fr"])) == "/a v1 fr")
        #expect(try await get(client, "/a", headers: ["Accept-Language": "fr"]).cacheStatus == .hit)
        let german = try await get(client, "/a", headers: ["Accept-Language": "de"])
        #expect(text(german) == "/a v1 de" && german.cacheStatus != .hit)
        #expect(origin.seen.count == 2)
        let star = CacheOrigin { _ in ["Cache-Control": "max-age=60", "Vary": "*"] }
        let starClient = self.client(star, cache())
        _ = try await get(starClient, "/b")
        _ = try await get(starClient, "/b")
        #expect(star.seen.count == 2, "Vary: * is never stored")
    }

    @Test("no-store in the response or the request: nothing is stored")
    func noStore() async throws {
        let origin = CacheOrigin { path in
            path == "/secret" ? ["Cache-Control": "no-store, max-age=60"] : ["Cache-Control": "max-age=60"]
        }
        let store = MemoryCacheStore()
        let client = client(origin, cache(store))
        _ = try await get(client, "/secret")
        _ = try await get(client, "/public", headers: ["Cache-Control": "no-store"])
        #expect(store.size == 0)
        _ = try await get(client, "/secret")
        #expect(origin.seen.count == 3)
    }

    @Test("a successful POST invalidates its URL; a GET then reaches the server")
    func unsafeMethodInvalidates() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=60"] }
        let client = client(origin, cache())
        _ = try await get(client, "/a")
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.post, "/a", encoding: .json)))
            .value
        let after = try await get(client, "/a")
        #expect(text(after) == "/a v2" && after.cacheStatus == .miss)
        #expect(origin.seen.map { "\($0.method) \($0.path)" } == ["GET /a", "POST /a", "GET /a"])
    }

    @Test("only-if-cached: the stored response when fresh, else a 504 made by the cache, never the network")
    func onlyIfCached() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=10"] }
        let client = client(origin, cache())
        let error = await restingError { try await get(client, "/a", headers: ["Cache-Control": "only-if-cached"]) }
        guard case .httpError(let httpError)? = error else {
            Issue.record("expected a 504, got \(String(describing: error))")
            return
        }
        #expect(httpError.status == 504)
        _ = try await get(client, "/a")
        #expect(try await get(client, "/a", headers: ["Cache-Control": "only-if-cached"]).cacheStatus == .hit)
        clock.withLock { $0 += 20 }
        let stale = await restingError { try await get(client, "/a", headers: ["Cache-Control": "only-if-cached"]) }
        guard case .httpError(let staleError)? = stale else {
            Issue.record("expected a 504, got \(String(describing: stale))")
            return
        }
        #expect(staleError.status == 504)
        #expect(origin.seen.count == 1)
    }

    @Test("stale-if-error: a refused connection or a 503 is answered with the stale response within the allowance")
    func staleIfError() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=10, stale-if-error=60"] }
        let client = client(origin, cache())
        _ = try await get(client, "/a")
        clock.withLock { $0 += 30 }
        origin.failure.withLock {
            $0 = .transportFailed(TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused"))
        }
        let offline = try await get(client, "/a")
        #expect(text(offline) == "/a v1" && offline.cacheStatus == .staleOnError)
        origin.failure.withLock { $0 = nil }
        origin.status.withLock { $0 = 503 }
        #expect(try await get(client, "/a").cacheStatus == .staleOnError)
        clock.withLock { $0 += 60 }
        let tooOld = await restingError { try await get(client, "/a") }
        guard case .httpError(let error)? = tooOld else {
            Issue.record("expected the 503, got \(String(describing: tooOld))")
            return
        }
        #expect(error.status == 503, "past the allowance the failure is the caller's")
    }

    @Test("stale-if-error from the interceptor's setting when the response gives none; never for must-revalidate")
    func staleIfErrorSetting() async throws {
        let refused = RestingError.transportFailed(
            TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused"))
        let lenient = CacheOrigin { path in
            path == "/strict" ? ["Cache-Control": "max-age=1, must-revalidate"] : ["Cache-Control": "max-age=1"]
        }
        let client = client(lenient, cache(staleIfError: .seconds(3600)))
        _ = try await get(client, "/lenient")
        _ = try await get(client, "/strict")
        clock.withLock { $0 += 100 }
        lenient.failure.withLock { $0 = refused }
        #expect(try await get(client, "/lenient").cacheStatus == .staleOnError)
        let strict = await restingError { try await get(client, "/strict") }
        guard case .transportFailed? = strict else {
            Issue.record("expected the transport failure, got \(String(describing: strict))")
            return
        }
    }

    @Test(
        "per-request policies: reload ignoring the cache, return the cache else load, return the cache and never load")
    func policies() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=10"] }
        let client = client(origin, cache())
        _ = try await get(client, "/a")
        let reloaded = try await get(client, "/a", policy: .reloadIgnoringCache)
        #expect(reloaded.cacheStatus == .miss && origin.seen.count == 2 && !origin.seen[1].conditional)
        clock.withLock { $0 += 1000 }
        #expect(try await get(client, "/a", policy: .returnCacheElseLoad).cacheStatus == .hit, "stale, served anyway")
        #expect(try await get(client, "/a", policy: .returnCacheDontLoad).cacheStatus == .hit)
        #expect(try await get(client, "/other", policy: .returnCacheElseLoad).cacheStatus == .miss)
        let never = await restingError { try await get(client, "/never", policy: .returnCacheDontLoad) }
        guard case .httpError(let error)? = never else {
            Issue.record("expected a 504, got \(String(describing: never))")
            return
        }
        #expect(error.status == 504)
        #expect(origin.seen.map(\.path) == ["/a", "/a", "/other"])
    }

    @Test(
        "a streamed response is stored once read whole and served again as a stream; one left half-read is not stored")
    func streamedResponses() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=60"] }
        let client = client(origin, cache())
        let endpoint = Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query)
        var lines: [String] = []
        for try await line in try await client.perform(RestingRequest(endpoint: endpoint)).value.body {
            lines.append(line)
        }
        #expect(lines == ["/lines v1"])
        let again = try await client.perform(RestingRequest(endpoint: endpoint)).value
        #expect(again.cacheStatus == .hit)
        var cached: [String] = []
        for try await line in again.body { cached.append(line) }
        #expect(cached == ["/lines v1"])
        #expect(origin.seen.count == 1)
        #expect(
            try await get(client, "/lines").cacheStatus == .hit, "a buffered call is served what a streamed one stored")
    }

    @Test("100 concurrent GETs of a cold resource: each answered correctly, the store consistent")
    func concurrentColdGets() async throws {
        let origin = CacheOrigin { _ in ["Cache-Control": "max-age=60"] }
        let store = MemoryCacheStore()
        let client = client(origin, cache(store))
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { self.text(try await self.get(client, "/cold")) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "/cold v1", count: 100))
        #expect(
            store.response(for: HTTPCacheInterceptor.key(for: URL(string: baseURL + "/cold")!))?.body
                == Data("/cold v1".utf8))
        #expect(try await get(client, "/cold").cacheStatus == .hit)
        #expect((1...100).contains(origin.seen.count))
    }

    @Test("a hit never sets a cookie again: Set-Cookie is not stored")
    func setCookieNotReplayed() async throws {
        let origin = CacheOrigin { _ in
            HTTPHeaderFields([("Cache-Control", "max-age=60"), ("Set-Cookie", "session=old")])
        }
        let jar = InMemoryCookieJar()
        let client = RestingClient(
            baseUrl: baseURL, httpClient: origin.transport,
            networkInterceptors: [CookieInterceptor(jar: jar), cache()])
        _ = try await get(client, "/a")
        jar.removeAll()  // signed out
        let hit = try await get(client, "/a")
        #expect(hit.cacheStatus == .hit && hit.headers["Set-Cookie"] == nil)
        #expect(jar.allCookies.isEmpty)
    }
}
