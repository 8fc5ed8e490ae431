import Foundation
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("Concurrency limit")
struct ConcurrencyLimitTests {
    typealias Adaptive = ConcurrencyLimitInterceptor.Adaptive
    let settings = Adaptive(initialLimit: 10, minimumLimit: 2, maximumLimit: 12, backoffRatio: 0.5, latencyTolerance: 2)
    let url = URL(string: "https://api.example.com/items")!

    @Test("the limit grows by one per call while latency holds and the limit is in use")
    func additiveIncrease() {
        var limit = AdaptiveLimit(settings)
        let moves = [
            limit.sample(latency: 0.010, failed: false, inFlight: 5, settings),
            limit.sample(latency: 0.012, failed: false, inFlight: 6, settings),
            limit.sample(latency: 0.012, failed: false, inFlight: 6, settings),
        ]
        #expect(moves == [true, true, false], "capped at the maximum")
        #expect(limit.admittedLimit == 12)
    }

    @Test("an idle client learns nothing: a limit far from use does not grow")
    func idleDoesNotGrow() {
        var limit = AdaptiveLimit(settings)
        let moved = limit.sample(latency: 0.010, failed: false, inFlight: 1, settings)
        #expect(!moved && limit.admittedLimit == 10)
    }

    @Test("a failure multiplies the limit down, to its floor and no lower")
    func failureBacksOff() {
        var limit = AdaptiveLimit(settings)
        _ = limit.sample(latency: 0.010, failed: true, inFlight: 5, settings)
        #expect(limit.admittedLimit == 5)
        _ = limit.sample(latency: 0.010, failed: true, inFlight: 5, settings)
        _ = limit.sample(latency: 0.010, failed: true, inFlight: 5, settings)
        #expect(limit.admittedLimit == 2)
    }

    @Test("a call slower than the tolerance times the least recent latency is a drop")
    func latencyGrowthBacksOff() {
        var limit = AdaptiveLimit(settings)
        _ = limit.sample(latency: 0.010, failed: false, inFlight: 5, settings)
        #expect(limit.baseline == 0.010)
        _ = limit.sample(latency: 0.019, failed: false, inFlight: 6, settings)
        #expect(limit.admittedLimit == 12)
        _ = limit.sample(latency: 0.025, failed: false, inFlight: 6, settings)
        #expect(limit.admittedLimit == 6)
    }

    @Test("the baseline forgets latencies two windows old: a backend slower for good becomes the normal")
    func baselineForgets() {
        var limit = AdaptiveLimit(settings)
        _ = limit.sample(latency: 0.001, failed: false, inFlight: 1, settings)
        for _ in 0..<(2 * AdaptiveLimit.baselineWindow) {
            _ = limit.sample(latency: 0.050, failed: false, inFlight: 1, settings)
        }
        #expect(limit.baseline == 0.050)
    }

    // MARK: The limiter and the interceptor

    @Test("a raised limit admits waiters at once; a lowered one admits no one until holders are under it")
    func limiterFollowsItsLimit() async throws {
        let limiter = CallLimiter(limit: 1)
        try await limiter.acquire()
        let waiter = Task { try await limiter.acquire(queueLimit: 10) }
        while limiter.queuedCount == 0 { await Task.yield() }
        limiter.setLimit(2)
        #expect(try await waiter.value)
        limiter.setLimit(1)
        limiter.release()
        #expect(try await limiter.acquire(queueLimit: 0) == false, "two held, one released: one held, at the limit")
    }

    /// A chain whose answers wait for `gate`, and a first call through `interceptor` that holds its only slot.
    private func holdingOneSlot(of interceptor: ConcurrencyLimitInterceptor) async
        -> (FakeChain, Task<HTTPDataResponse, any Error>, AsyncStream<Void>.Continuation)
    {
        let (release, gate) = AsyncStream<Void>.makeStream()
        let (entered, enteredSignal) = AsyncStream<Void>.makeStream()
        let chain = FakeChain { request in
            enteredSignal.yield()
            for await _ in release { break }
            return HTTPDataResponse(status: 200, url: request.url)
        }
        let url = url
        let first = Task { try await chain.run(interceptor, on: HTTPRequest(method: .get, url: url)) }
        for await _ in entered { break }
        return (chain, first, gate)
    }

    @Test("a call over the limit with no room in the queue is shed with the key and the limit")
    func shedding() async throws {
        let interceptor = ConcurrencyLimitInterceptor(.fixed(1), maximumQueued: 0)
        let (chain, first, gate) = await holdingOneSlot(of: interceptor)
        let url = url
        await #expect(throws: ResilienceError.loadShed(key: "https://api.example.com:443", limit: 1)) {
            try await chain.run(interceptor, on: HTTPRequest(method: .get, url: url))
        }
        gate.yield()
        #expect(try await first.value.status == 200)
        #expect(chain.callCount == 1)
    }

    @Test("a queued call whose deadline passes ends with the deadline's reason, and its place is given up")
    func queuedPastDeadline() async throws {
        let clock = VirtualClock()
        let interceptor = ConcurrencyLimitInterceptor(.fixed(1), clock: clock)
        let deadline = DeadlineInterceptor(callTimeout: .seconds(1), clock: clock)
        let (chain, first, gate) = await holdingOneSlot(of: interceptor)
        let url = url
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .concurrencyWait))) {
            try await deadline.intercept(
                request: HTTPRequest(method: .get, url: url),
                execution: InterceptorExecution {
                    try await interceptor.intercept(request: $0, execution: chain.execution)
                })
        }
        gate.yield()
        #expect(try await first.value.status == 200)
        #expect(
            try await FakeChain(.status(200)).run(interceptor, on: HTTPRequest(method: .get, url: url)).status == 200)
    }

    @Test("an adaptive limit falls as a key's calls fail, and is reported with each admission")
    func adaptiveInterceptor() async throws {
        let interceptor = ConcurrencyLimitInterceptor(.adaptive(Adaptive(initialLimit: 8, backoffRatio: 0.5)))
        let chain = FakeChain(.status(503))
        _ = try await chain.run(interceptor, on: HTTPRequest(method: .get, url: url))
        #expect(interceptor.currentLimit(for: "https://api.example.com:443") == 4)
        #expect(interceptor.currentLimit(for: "https://other.example.com:443") == 8)
    }
}
