import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCache
@testable import RestingCore
@testable import RestingResilience

/// The bounded per-key state (``BoundedMap``) of the resilience links and the cache's clamp: state
/// that says "wait" (a spent quota, a server's pause, an open breaker) must not be forgotten because the client also
/// talked to other hosts, or because a little time passed.
@Suite("Resilience state is kept while it matters, however many other hosts are called")
struct ResilienceStateRetentionTests {
    typealias Limit = RateLimitInterceptor.Limit
    /// Other hosts called meanwhile: past three quarters of a link's 10,000 keys, so that the map must evict — and a
    /// tenth under a sanitizer (see `BoundedMapTests`), where the code paths run but evict nothing.
    static let otherHosts = Probe.underSanitizer ? 1_000 : 10_000
    let api = URL(string: "https://api.example.com/items")!
    let apiKey = "https://api.example.com:443"

    private func get(_ url: URL) -> HTTPRequest { HTTPRequest(method: .get, url: url) }

    private func host(_ index: Int) -> URL { URL(string: "https://h\(index).crawl.example/")! }

    @Test("a limit of 2 requests a day is kept: an hour later, after other hosts, the key has no new tokens")
    func dailyLimitOutlivesIdleExpiry() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: Limit(requests: 2, per: .seconds(86_400)), maximumWait: .zero, clock: clock)
        let chain = FakeChain(.status(200))
        for _ in 0..<2 { _ = try await chain.run(limiter, on: get(api)) }
        await #expect(throws: ResilienceError.self, "the day's two tokens are spent") {
            try await chain.run(limiter, on: get(api))
        }
        // An hour and a second later (a 2-a-day bucket refills 0.08 of a token in that time) the app calls other
        // hosts, as a crawler or a gateway does.
        clock.advance(by: .seconds(3_601))
        for index in 0..<2_500 { _ = try await chain.run(limiter, on: get(host(index))) }
        let before = chain.callCount
        _ = await Result { try await chain.run(limiter, on: get(api)) }
        _ = await Result { try await chain.run(limiter, on: get(api)) }
        #expect(
            chain.callCount == before,
            "\(chain.callCount - before) more requests went to a key whose 2-a-day limit was spent 1 h ago")
    }

    @Test("a server's Retry-After pause outlives the client's calls to 10,000 other hosts within it")
    func pauseSurvivesOtherHosts() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 1_000, per: .seconds(1)), clock: clock)
        _ = try await FakeChain(.status(429, headers: ["Retry-After": "600"])).run(limiter, on: get(api))
        let pausedUntil = try #require(limiter.pausedUntil(for: apiKey))
        let chain = FakeChain(.status(200))
        for index in 0..<Self.otherHosts {
            if index % 500 == 0 { await Task.yield() }
            clock.advance(by: .milliseconds(1))
            _ = try await chain.run(limiter, on: get(host(index)))
        }
        // Ten seconds into a ten-minute pause.
        #expect(limiter.pausedUntil(for: apiKey) == pausedUntil, "the pause was dropped")
        // 590 s left, past the limiter's longest wait: the next call is refused, not sent.
        let sentBefore = chain.callCount
        await #expect(throws: ResilienceError.self) { try await chain.run(limiter, on: get(api)) }
        #expect(chain.callCount == sentBefore, "the next call to the paused key went at once")
    }

    @Test("a 429 answering a call in flight pauses its key, however many other keys were used meanwhile")
    func answerOfCallInFlightIsLearned() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 1_000, per: .seconds(1)), clock: clock)
        let others = FakeChain(.status(200))
        // While the slow call to the API is in flight, the app calls 10,000 other hosts.
        let slow = FakeChain { request in
            for index in 0..<Self.otherHosts {
                if index % 500 == 0 { await Task.yield() }
                clock.advance(by: .milliseconds(1))
                _ = try await others.run(
                    limiter, on: HTTPRequest(method: .get, url: URL(string: "https://h\(index).x/")!))
            }
            return HTTPDataResponse(status: 429, headers: ["Retry-After": "600"], url: request.url)
        }
        _ = try await slow.run(limiter, on: get(api))
        let pause = limiter.pausedUntil(for: apiKey).map { $0.timeIntervalSince(clock.now) }
        #expect(pause == 600, "the server's 429 Retry-After: 600 was ignored (pause: \(String(describing: pause)))")
    }

    @Test("an open breaker stays open while the client calls 10,000 other hosts within its open duration")
    func openBreakerSurvivesOtherHosts() async throws {
        let clock = VirtualClock()
        let breaker = CircuitBreakerInterceptor(
            policy: .init(window: .count(4), minimumCalls: 4, openDuration: .seconds(60)), clock: clock)
        let failing = FakeChain(.status(503))
        for _ in 0..<4 { _ = try await failing.run(breaker, on: get(api)) }
        #expect(breaker.state(for: apiKey) == .open)
        let chain = FakeChain(.status(200))
        for index in 0..<Self.otherHosts {
            if index % 500 == 0 { await Task.yield() }
            clock.advance(by: .milliseconds(1))
            _ = try await chain.run(breaker, on: get(host(index)))
        }
        // Ten seconds into a sixty-second open spell.
        #expect(breaker.state(for: apiKey) == .open, "the open breaker was dropped")
        let before = failing.callCount
        _ = await Result { try await failing.run(breaker, on: get(api)) }
        #expect(failing.callCount == before, "a call went to the failing origin while its breaker should be open")
    }

    @Test("a server's stale-if-error is a cached response's lifetime like max-age: two years stale is never served")
    func staleIfErrorIsClamped() async throws {
        let now = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let cache = HTTPCacheInterceptor(store: MemoryCacheStore(), now: { now.withLock { $0 } })
        let chain = FakeChain(
            .status(200, headers: ["Cache-Control": "max-age=60, stale-if-error=9999999999"], body: Data("2025".utf8)),
            .status(503))
        _ = try await chain.run(cache, on: get(api))
        // Two years later, past the year a server's cache lifetime is clamped to (ServerDuration.Use.cacheLifetime).
        now.withLock { $0 += 2 * 365 * 24 * 3600 }
        let response = try await chain.run(cache, on: get(api))
        #expect(chain.callCount == 2)
        #expect(
            response.status == 503,
            "a \(response.status) two years stale was served because the server's stale-if-error said 317 years")
    }
}
