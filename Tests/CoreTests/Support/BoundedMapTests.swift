import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

/// State keyed by what a server or a caller chooses stays bounded: one map type (``BoundedMap``), and every link
/// that keys state by a host, an origin or a key keeps it there.
@Suite("Bounded per-key state")
struct BoundedMapTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("100,000 distinct keys leave at most the capacity, the most recently used kept")
    func capacity() async {
        var map = BoundedMap<String, Int>(capacity: 1_000)
        var largest = 0
        let keys = Probe.underSanitizer ? 10_000 : 100_000
        for index in 0..<keys {
            // Two cooperative threads run every suite at once: a long loop lets the others on now and then.
            if index % 1_000 == 0 { await Task.yield() }
            map.withValue(for: "host-\(index)", now: start + Double(index), default: index) { $0 += 0 }
            largest = max(largest, map.count)
        }
        #expect(largest <= 1_000)
        #expect(map["host-\(keys - 1)"] == keys - 1 && map["host-0"] == nil)
    }

    @Test("a key unused past the idle expiry is dropped unless it holds something; what holds nothing goes first")
    func idleAndHeld() {
        // Negative values hold something (a spent quota, say); others are as good as new.
        var map = BoundedMap<String, Int>(capacity: 8, idleExpiry: .seconds(60)) { value, _ in value < 0 }
        map.withValue(for: "held", now: start, default: -1) { _ in }
        map.withValue(for: "idle", now: start, default: 1) { _ in }
        map.withValue(for: "used", now: start, default: 2) { _ in }
        _ = map.update("used", now: start + 50) { $0 += 1 }
        for index in 0..<4 { map.withValue(for: "new-\(index)", now: start + 100, default: 3) { _ in } }
        #expect(map["held"] == -1 && map["idle"] == nil && map["used"] == 3)
        for index in 0..<100 { map.withValue(for: "more-\(index)", now: start + 100, default: 3) { _ in } }
        #expect(map["held"] == -1 && map.count <= 8, "the new keys that hold nothing went before it")
    }

    @Test("past the capacity in entries that hold something, the least recently used of them go too")
    func heldEntriesAreBounded() {
        var map = BoundedMap<String, Int>(capacity: 100) { _, _ in true }
        for index in 0..<10_000 {
            map.withValue(for: "held-\(index)", now: start + Double(index), default: -1) { _ in }
        }
        #expect(map.count <= 100 && map["held-9999"] == -1 && map["held-0"] == nil)
    }

    @Test("the resilience links called for 100,000 distinct hosts (25,000 each) keep state for at most 10,000 each")
    func resilienceLinksStayBounded() async throws {
        let clock = VirtualClock()
        let breaker = CircuitBreakerInterceptor(clock: clock)
        let limiter = RateLimitInterceptor(limit: .init(requests: 100, per: .seconds(1)), clock: clock)
        let concurrency = ConcurrencyLimitInterceptor(clock: clock)
        let hedging = HedgingInterceptor(maximumHedges: 0, clock: clock)
        let links: [any RestingInterceptor] = [breaker, limiter, concurrency, hedging]
        try await withThrowingTaskGroup { group in
            for (number, link) in links.enumerated() {
                group.addTask {
                    let chain = FakeChain(.status(200))
                    // Under a sanitizer, whose point is races and memory errors, not scale, a tenth: 100,000 calls
                    // there cost minutes of both cores and starved the suites with time limits.
                    for index in 0..<(Probe.underSanitizer ? 2_500 : 25_000) {
                        if index % 500 == 0 { await Task.yield() }
                        let url = try #require(URL(string: "https://h\(index).l\(number).example.com/"))
                        _ = try await chain.run(link, on: HTTPRequest(method: .get, url: url))
                    }
                }
            }
            try await group.waitForAll()
        }
        for (name, count) in [
            ("breaker", breaker.keyCount), ("limiter", limiter.keyCount), ("concurrency", concurrency.keyCount),
            ("hedging", hedging.keyCount),
        ] {
            #expect(count <= 10_000, "\(name) keeps \(count) keys")
        }
    }
}
