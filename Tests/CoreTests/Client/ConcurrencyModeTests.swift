import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore

/// A transport that holds every request until released, and records the order and overlap of requests.
final class HoldingTransport: HTTPClient {
    let started = Collector<String>()
    private let inFlight = Locked((now: 0, most: 0))
    private let gate = Locked<[CheckedContinuation<Void, Never>]>([])

    var mostInFlight: Int { inFlight.withLock { $0.most } }

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        inFlight.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
        }
        defer { inFlight.withLock { $0.now -= 1 } }
        await withCheckedContinuation { continuation in
            gate.withLock { $0.append(continuation) }
            // Only a request that is already held counts as started: a `releaseAll()` that follows a wait for
            // the start then always frees it (recorded earlier, it could slip past the release and hang).
            started.append(request.url.lastPathComponent)
        }
        try Task.checkCancellation()
        return HTTPDataResponse(status: 200, url: request.url)
    }

    /// Lets the held requests go.
    func releaseAll() {
        for continuation in gate.withLock({ held in
            defer { held = [] }
            return held
        }) { continuation.resume() }
    }
}

@Suite("Concurrency modes and cancel-all", .timeLimit(.minutes(5)))
struct ConcurrencyModeTests {
    let endpoint = Endpoint<Nothing, Nothing>(.get, "/item/{{n}}", encoding: .query)

    @Test("a limit keeps at most n calls in flight and starts the others in order")
    func limitedInOrder() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport, concurrency: .limited(2))
        var promises: [ProgressablePromise<RestingResponse<Nothing>>] = []
        for n in 0..<6 {
            promises.append(client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": n])))
            // Each call queues before the next is made, so the arrival order is known.
            if n < 2 { await transport.started.wait { $0.count == n + 1 } } else { await Task.yield() }
        }
        for round in 1...3 {
            await transport.started.wait { $0.count == round * 2 }
            #expect(transport.mostInFlight == 2)
            transport.releaseAll()
        }
        for promise in promises { _ = try await promise.value }
        #expect(transport.started.all.count == 6 && transport.mostInFlight == 2)
    }

    @Test("waiters are admitted in the order they arrived")
    func firstInFirstOut() async throws {
        let limiter = CallLimiter(limit: 1)
        try await limiter.acquire()
        let admitted = Collector<String>()
        var waiters: [Task<Void, any Error>] = []
        for name in ["a", "b", "c", "d"] {
            waiters.append(
                Task {
                    try await limiter.acquire()
                    admitted.append(name)
                })
            while limiter.queuedCount < waiters.count { await Task.yield() }
        }
        for round in 1...4 {
            limiter.release()
            await admitted.wait { $0.count == round }
        }
        #expect(admitted.all == ["a", "b", "c", "d"])
    }

    @Test("free slots are taken at once; a full limit with no room to queue refuses; a released slot is free again")
    func freeSlotsAtOnce() async throws {
        let limiter = CallLimiter(limit: 2)
        #expect(try await limiter.acquire(queueLimit: 0))
        #expect(try await limiter.acquire(queueLimit: 0))
        #expect(limiter.inUse == 2)
        #expect(try await !limiter.acquire(queueLimit: 0))
        limiter.release()
        #expect(try await limiter.acquire(queueLimit: 0))
        #expect(limiter.inUse == 2 && limiter.queuedCount == 0)
    }

    @Test("once waiting is refused, the waiters and every later caller without a free slot fail; a free slot is taken")
    func refusedWaiting() async throws {
        let limiter = CallLimiter(limit: 1)
        try await limiter.acquire()
        let waiting = Task { try await limiter.acquire() }
        while limiter.queuedCount < 1 { await Task.yield() }
        limiter.refuseWaiting(with: .shutDown)
        await #expect(throws: RestingError.shutDown) { try await waiting.value }
        await #expect(throws: RestingError.shutDown) { try await limiter.acquire() }
        #expect(limiter.inUse == 1 && limiter.queuedCount == 0)
        limiter.release()
        try await limiter.acquire()
        #expect(limiter.inUse == 1)
    }

    @Test("a caller cancelled before it asks is refused though a slot is free, and holds none")
    func cancelledCallerRefusedAFreeSlot() async throws {
        let limiter = CallLimiter(limit: 1)
        let asking = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await limiter.acquire(queueLimit: 10)
        }
        await #expect(throws: RestingError.cancelled) { try await asking.value }
        #expect(limiter.inUse == 0)
        #expect(try await limiter.acquire(queueLimit: 0))
    }

    @Test("a queued call can be cancelled and never reaches the transport")
    func cancelQueued() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport, concurrency: .serial)
        let running = client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1]))
        await transport.started.wait { $0.count == 1 }
        let queued = client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 2]))
        queued.cancel()
        guard case .cancelled = await Result(catching: { try await queued.value }).failure else {
            Issue.record("the queued call must fail with .cancelled")
            return
        }
        transport.releaseAll()
        _ = try await running.value
        #expect(transport.started.all == ["1"])
    }

    @Test("cancelAll cancels queued and running calls alike")
    func cancelAllQueuedAndRunning() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport, concurrency: .limited(2))
        let promises = (0..<5).map { client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": $0])) }
        await transport.started.wait { $0.count == 2 }
        client.cancelAll()
        transport.releaseAll()  // running calls see their cancellation when they resume
        for promise in promises {
            guard case .cancelled = await Result(catching: { try await promise.value }).failure else {
                Issue.record("every call must fail with .cancelled")
                continue
            }
        }
        #expect(transport.started.all.count == 2, "the three queued calls never started")
        #expect(client.calls.count == 0, "settled calls leave nothing in the registry")
        // The client still works afterwards.
        let later = client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 9]))
        await transport.started.wait { $0.count == 3 }
        transport.releaseAll()
        #expect(try await later.value.status == 200)
    }
}
