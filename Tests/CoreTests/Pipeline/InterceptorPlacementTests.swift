import Foundation
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCache
@testable import RestingCookies
@testable import RestingCore
@testable import RestingResilience

/// The orders built-in interceptors must stand in, checked in code when a client is made: a link out of its place
/// makes every call fail with `interceptorMisuse` naming it, before anything is sent.
@Suite("Interceptor placement")
struct InterceptorPlacementTests {
    /// The misplacement of `interceptors` and `networkInterceptors`, as a client made with them reports it.
    func misplacement(
        _ interceptors: [any RestingInterceptor], network networkInterceptors: [any RestingInterceptor] = []
    ) -> RestingError? {
        RestingClient(
            baseUrl: "https://api.example.com", httpClient: StubHTTPClient(), interceptors: interceptors,
            networkInterceptors: networkInterceptors
        ).configurationError
    }

    static func resilienceLinks() -> [(name: String, link: any RestingInterceptor)] {
        [
            ("DeadlineInterceptor", DeadlineInterceptor(callTimeout: .seconds(10))),
            ("CircuitBreakerInterceptor", CircuitBreakerInterceptor()),
            ("RetryInterceptor", RetryInterceptor()),
            ("HedgingInterceptor", HedgingInterceptor()),
            ("RateLimitInterceptor", RateLimitInterceptor(limit: .init(requests: 10, per: .seconds(1)))),
            ("ConcurrencyLimitInterceptor", ConcurrencyLimitInterceptor()),
        ]
    }

    static func credentialLinks() -> [(name: String, link: any RestingInterceptor)] {
        [
            ("CookieInterceptor", CookieInterceptor(jar: InMemoryCookieJar())),
            ("ChallengeAuthInterceptor", ChallengeAuthInterceptor.digest(username: "admin", password: "secret")),
            ("HTTPCacheInterceptor", HTTPCacheInterceptor(store: MemoryCacheStore())),
        ]
    }

    @Test("the resilience links in their order — deadline, breaker, retry, hedging, rate limit, concurrency — pass")
    func resilienceInOrder() {
        #expect(misplacement(Self.resilienceLinks().map(\.link)) == nil)
    }

    @Test("any two resilience links swapped are refused, naming the one that stands too late", arguments: 0..<5)
    func resilienceSwapped(first: Int) {
        var links = Self.resilienceLinks()
        // Deadline and concurrency limit must also stand in `interceptors`; every link here does.
        links.swapAt(first, first + 1)
        #expect(
            misplacement(links.map(\.link))
                == .interceptorMisuse(
                    interceptor: links[first + 1].name,
                    reason: "must stand before \(links[first].name) (the resilience order)"))
    }

    @Test("a link of the resilience order after ResilienceLinks would stand inside its concurrency limit: refused")
    func afterTheComposedLinks() {
        let composed = ResilienceLinks(retry: RetryInterceptor(), concurrency: ConcurrencyLimitInterceptor())
        #expect(misplacement([composed, RetryInterceptor()])?.errorType == "interceptorMisuse")
        #expect(misplacement([composed]) == nil)
        #expect(composed.links.count == 2)
    }

    @Test("ResilienceLinks runs its links in their order whatever order the caller thinks of")
    func composedOrder() {
        let composed = ResilienceLinks(
            deadline: DeadlineInterceptor(), breaker: CircuitBreakerInterceptor(), retry: RetryInterceptor(),
            hedging: HedgingInterceptor(), rateLimit: RateLimitInterceptor(limit: .init(requests: 1, per: .seconds(1))),
            concurrency: ConcurrencyLimitInterceptor())
        let names = composed.links.map { String(describing: type(of: $0)) }
        #expect(names == Self.resilienceLinks().map(\.name))
    }

    @Test("ResilienceLinks runs its links on every call: an open breaker fails the call as circuitOpen")
    func composedLinksRun() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/items", .status(503), .status(503), .status(503), .status(503))
        let breaker = CircuitBreakerInterceptor(
            policy: .init(window: .count(10), minimumCalls: 4, failureRateThreshold: 0.5, openDuration: .seconds(30)),
            clock: VirtualClock())
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, interceptors: [ResilienceLinks(breaker: breaker)])
        let items = Endpoint<Nothing, Nothing>(.get, "/items")
        for _ in 0..<4 { _ = try? await client.send(RestingRequest(endpoint: items)) }
        await #expect(throws: ResilienceError.circuitOpen(key: "https://api.example.com:443", retryAfter: .seconds(30)))
        {
            try await client.send(RestingRequest(endpoint: items))
        }
        #expect(stub.received.count == 4)
    }

    @Test("the deadline and the concurrency limit stand among the application interceptors, not the network ones")
    func applicationOnly() {
        #expect(
            misplacement([], network: [DeadlineInterceptor()])
                == .interceptorMisuse(interceptor: "DeadlineInterceptor", reason: "must stand in interceptors"))
        #expect(
            misplacement([], network: [ConcurrencyLimitInterceptor()])
                == .interceptorMisuse(interceptor: "ConcurrencyLimitInterceptor", reason: "must stand in interceptors"))
        #expect(misplacement([], network: [ResilienceLinks(deadline: DeadlineInterceptor())]) != nil)
    }

    @Test("cookies, then challenge authentication, then the cache: the cache keys on the credentials they add")
    func credentialsBeforeTheCache() {
        let links = Self.credentialLinks()
        #expect(misplacement([], network: links.map(\.link)) == nil)
        #expect(
            misplacement([], network: [links[2].link, links[0].link])
                == .interceptorMisuse(
                    interceptor: "CookieInterceptor",
                    reason: "must stand before HTTPCacheInterceptor (the credentials and cache order)"))
        #expect(misplacement([], network: [links[2].link, links[1].link])?.errorType == "interceptorMisuse")
        // The application interceptors run first: a cache there stands before network cookies.
        #expect(misplacement([links[2].link], network: [links[0].link])?.errorType == "interceptorMisuse")
    }

    @Test("challenge authentication answers each hop, so it stands among the network interceptors")
    func challengeAuthenticationOnTheNetwork() {
        #expect(
            misplacement([ChallengeAuthInterceptor.digest(username: "admin", password: "secret")])
                == .interceptorMisuse(
                    interceptor: "ChallengeAuthInterceptor", reason: "must stand in networkInterceptors"))
    }

    @Test("a misplaced client fails every call at once with the misplacement, and sends nothing")
    func callsFailBeforeSending() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/items", .status(200))
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [RateLimitInterceptor(limit: .init(requests: 10, per: .seconds(1))), RetryInterceptor()])
        let items = Endpoint<Nothing, Nothing>(.get, "/items")
        await #expect(throws: client.configurationError ?? .cancelled) {
            try await client.send(RestingRequest(endpoint: items))
        }
        #expect(client.configurationError?.errorType == "interceptorMisuse")
        #expect(stub.received.isEmpty)
    }

    /// An interceptor of the app's own module, placed through the same seam the built-ins use.
    struct Audit: PlacedInterceptor {
        let rank: Int
        var placement: InterceptorPlacement {
            InterceptorPlacement(order: "audit", rank: rank, list: .network, name: "Audit\(rank)")
        }
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            try await execution(request)
        }
    }

    @Test("an app's own order is checked the same way, and orders do not constrain one another")
    func ownOrder() {
        #expect(misplacement([RetryInterceptor()], network: [Audit(rank: 1), Audit(rank: 2)]) == nil)
        #expect(
            misplacement([], network: [Audit(rank: 2), Audit(rank: 1)])
                == .interceptorMisuse(interceptor: "Audit1", reason: "must stand before Audit2 (the audit order)"))
        #expect(
            misplacement([Audit(rank: 1)])
                == .interceptorMisuse(interceptor: "Audit1", reason: "must stand in networkInterceptors"))
    }
}
