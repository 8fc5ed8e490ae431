import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

/// What a hostile review of the interceptors on their caller's executor and of the origin key a converted request
/// carries tried: a URL readdressed every way an interceptor can, a breaker opened by a slow success, every name of a
/// rate-limit field, a chain called from the main actor and an escaped execution.
@Suite("Chain and origin key: hostile review")
struct ChainAndOriginHostileReviewTests {
    static let api = "https://api.example.com"
    static let apiKey = "https://api.example.com:443"
    static let mirror = URL(string: "https://mirror.example.net/items")!
    static let mirrorKey = "https://mirror.example.net:443"
    static let items = Endpoint<Nothing, Nothing>(.get, "/items")

    struct Refused: Error {}

    /// Readdresses `url`, then finds it cannot finish (a validation after the write): an ordinary throwing
    /// in-place edit whose write stands.
    static func readdress(_ url: inout URL, to target: URL) throws {
        url = target
        throw Refused()
    }

    // MARK: - The origin key a converted request carries

    @Test(
        "a URL changed in place by an edit that throws drops the converter's origin key: the mirror's 503s open its own breaker"
    )
    func throwingInPlaceEditDropsTheOriginKey() async throws {
        let policy = CircuitBreakerInterceptor.Policy(window: .count(4), minimumCalls: 4, openDuration: .seconds(30))
        let breaker = CircuitBreakerInterceptor(policy: policy, clock: VirtualClock())
        let hosts = Collector<String>()
        let transport = ClosureHTTPClient { request in
            hosts.append(request.url.host ?? "")
            return HTTPDataResponse(status: 503, url: request.url)
        }
        let client = RestingClient(
            baseUrl: Self.api, httpClient: transport,
            interceptors: [
                RequestRewriter { request in
                    var request = request
                    do { try Self.readdress(&request.url, to: Self.mirror) } catch {}
                    return request
                },
                breaker,
            ])
        for _ in 0..<4 { _ = await Result { try await client.send(RestingRequest(endpoint: Self.items)) } }
        #expect(hosts.all == Array(repeating: "mirror.example.net", count: 4), "every call went to the mirror")
        #expect(breaker.state(for: Self.mirrorKey) == .open, "the mirror failed four times out of four")
        #expect(breaker.state(for: Self.apiKey) == .closed, "the API was never called")
    }

    // MARK: - When a breaker opens

    @Test(
        "a success that opens a count-window breaker opens it for the open duration from when the call ended",
        arguments: [20, 45])  // seconds the opening call takes: within the open duration, and past it
    func successOpeningBreakerOpensFromItsEnd(callSeconds: Int) async throws {
        let clock = VirtualClock()
        let policy = CircuitBreakerInterceptor.Policy(
            window: .count(10), minimumCalls: 4, failureRateThreshold: 0.5, openDuration: .seconds(30))
        let breaker = CircuitBreakerInterceptor(policy: policy, clock: clock)
        let url = URL(string: "https://api.example.com/items")!
        for _ in 0..<3 { _ = try await FakeChain(.status(503)).run(breaker, on: HTTPRequest(method: .get, url: url)) }
        #expect(breaker.state(for: Self.apiKey) == .closed, "three calls: under the minimum")
        // The fourth call succeeds, slowly: 3 failures in 4 calls open the breaker when it ends.
        let slow = FakeChain { request in
            clock.advance(by: .seconds(callSeconds))
            return HTTPDataResponse(status: 200, url: request.url)
        }
        _ = try await slow.run(breaker, on: HTTPRequest(method: .get, url: url))
        #expect(breaker.state(for: Self.apiKey) == .open)
        await #expect(throws: ResilienceError.circuitOpen(key: Self.apiKey, retryAfter: .seconds(30))) {
            try await FakeChain(.status(200)).run(breaker, on: HTTPRequest(method: .get, url: url))
        }
    }
}

// MARK: - Properties checked that held

extension ChainAndOriginHostileReviewTests {
    @Test(
        "the origin key a converted request carries is its URL's origin, whatever the base URL and path",
        arguments: [
            "https://api.example.com", "https://API.Example.COM", "https://user:pw@api.example.com:8443",
            "http://api.example.com:80/", "https://api.example.com:0443/v1/", "http://[::1]:8080",
            "http://[::FFFF:127.0.0.1]", "https://api.example.com/v1?tenant=a", "https://api.example.com#frag",
            "https://api.example.com:", "http://127.0.0.1:65535", "HTTPS://api.example.com",
            "https://api.example.com./x", "https://u%40x@api.example.com", "https://api%2Eexample.com",
        ])
    func convertedOriginKeyIsTheURLsOrigin(base: String) throws {
        let converter = RestingRequestConverter()
        let calls: [(Endpoint<Nothing, Nothing>, [String: any PathVariableValue], [URLQueryItem])] = [
            (Endpoint(.get, "/items"), [:], []),
            (Endpoint(.get, "/items"), [:], [URLQueryItem(name: "q", value: "1")]),
            (Endpoint(.get, ""), [:], [URLQueryItem(name: "q", value: "1")]),
            (Endpoint(.get, "{id}"), ["id": "@evil.example"], []),
            (Endpoint(.get, "{id}"), ["id": ":9999"], []),
            (Endpoint(.get, "{id}/x"), ["id": "https://evil.example"], []),
            (Endpoint(.get, "/{id}"), ["id": "..//evil.example"], []),
            (Endpoint(.get, "https://other.example:444/x"), [:], []),
            (Endpoint(.get, "HTTP://Other.Example/x"), [:], []),
        ]
        var converted = 0
        for (endpoint, variables, query) in calls {
            // Twice: the second conversion reads the caches.
            for _ in 0..<2 {
                guard
                    let request = try? converter.toHTTPRequest(
                        RestingRequest(endpoint: endpoint, pathVariables: variables, queryItems: query), baseUrl: base)
                else { continue }
                converted += 1
                #expect(
                    request.originKey == Origin(request.url)?.description,
                    "\(base) + \(endpoint.path) → \(request.url.absoluteString)")
            }
        }
        #expect(converted > 0)
    }

    @Test(
        "a rate limiter hears a quota or back-off field on a 200 in any case of its name",
        arguments: [
            ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "60"],
            ["X-RATELIMIT-REMAINING": "0", "X-RateLimit-Reset": "60"],
            ["ratelimit": "limit=10, remaining=0, reset=30"],
            ["RATELIMIT": "\"default\";r=0;t=30"],
            ["RateLimit-Remaining": "0", "ratelimit-reset": "30"],
            ["BACKOFF": "30"],
            ["x-backoff": "30"],
        ] as [HTTPHeaderFields])
    func rateLimiterHearsEveryFieldName(headers: HTTPHeaderFields) async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: .init(requests: 100, per: .seconds(1)), backoffHeaders: ["Backoff", "X-Backoff"], clock: clock)
        let chain = FakeChain(.status(200, headers: headers))
        _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/")!))
        #expect(limiter.pausedUntil(for: Self.apiKey) != nil)
    }

    @Test("called straight from the main actor, a composed chain runs, and an escaped execution is refused after")
    @MainActor
    func mainActorCallerAndEscapedExecution() async throws {
        let escaped = Locked<InterceptorExecution?>(nil)
        let links = ResilienceLinks(
            breaker: CircuitBreakerInterceptor(clock: VirtualClock()),
            rateLimit: RateLimitInterceptor(limit: .init(requests: 100, per: .seconds(1)), clock: VirtualClock()))
        let keeper = RequestRewriter { $0 }
        struct Escaper: RestingInterceptor {
            let escaped: Locked<InterceptorExecution?>
            nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution)
                async throws -> HTTPDataResponse
            {
                escaped.withLock { $0 = execution }
                return try await execution(request)
            }
        }
        let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/")!)
        let chain = FakeChain(.status(200))
        let response = try await ChainRun.start([keeper, Escaper(escaped: escaped), links], from: 0, request) {
            try await chain.execution($0)
        }
        #expect(response.status == 200)
        let execution = try #require(escaped.withLock { $0 })
        let late = await Task.detached { await Result { try await execution(request) } }.value
        #expect(throws: RestingError.self) { try late.get() }
        #expect(chain.callCount == 1)
        // The execution holds the chain, which holds the Escaper, which holds the execution: break the cycle.
        escaped.withLock { $0 = nil }
    }
}
