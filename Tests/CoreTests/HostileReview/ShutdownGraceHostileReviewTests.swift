import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// Hostile review of `RestingClient.shutdown(gracePeriod:)` (CallRegistry, GracePeriod).
///
/// Tests marked "found by the review, fixed" failed against 4bab00f; the others are attacks it withstood.
@Suite("Shutdown and its grace period: hostile review", .timeLimit(.minutes(5)))
struct ShutdownGraceHostileReviewTests {
    /// The shutdown tests' gate: holds whoever passes it until it is opened.
    typealias Gate = RestingClientShutdownTests.Gate

    /// The client, held weakly: it holds the interceptor that holds this.
    struct WeakClient { weak var value: RestingClient? }

    /// Runs `action` with the client before passing each request on.
    struct Hook: RestingInterceptor {
        let box: Locked<WeakClient>
        let action: @Sendable (HTTPRequest, RestingClient) async throws -> Void
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            if let client = box.withLock({ $0.value }) { try await action(request, client) }
            return try await execution(request)
        }
    }

    /// A transport that honours cancellation as a real one does: a request to `/slow` waits for `gate`, and a
    /// cancelled request fails.
    static func stub(_ gate: Gate) -> StubHTTPClient {
        StubHTTPClient { request in
            if request.request.url.path.hasPrefix("/slow") { await gate.pass() }
            try Task.checkCancellation()
            return .status(200)
        }
    }

    static func client(
        _ transport: any HTTPClient, concurrency: ConcurrencyMode = .unlimited,
        extra: [any RestingInterceptor] = [],
        hook: (@Sendable (HTTPRequest, RestingClient) async throws -> Void)? = nil
    ) -> RestingClient {
        let box = Locked(WeakClient())
        var interceptors = extra
        if let hook { interceptors.insert(Hook(box: box, action: hook), at: 0) }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport, interceptors: interceptors,
            concurrency: concurrency)
        box.withLock { $0.value = client }
        return client
    }

    static func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    /// Whether a new call is refused (a shutdown has begun).
    static func refused(_ client: RestingClient) -> Bool {
        guard let id = client.calls.add(cancel: {}) else { return true }
        client.calls.settle(id)
        return false
    }

    static func waitUntilRefused(_ client: RestingClient) async {
        while !refused(client) { await Task.yield() }
    }

    /// How a call ended: its status, or the `RestingError` type it failed with.
    static func outcome(_ body: () async throws -> Int) async -> String {
        do { return String(try await body()) } catch { return (error as? RestingError)?.errorType ?? "\(error)" }
    }

    // MARK: - Defects

    // Found by the review, fixed: a Task started inside a call inherits the call's CallRegistry.current; once that call has settled, a shutdown from that Task never returns — and neither does any later shutdown of the client
    @Test("a kill switch fired from a task the call started, after the call ended, and every shutdown after it, return")
    func killSwitchTaskOutlivingItsCall() async throws {
        let gate = Gate()
        let killSwitch = Locked<Task<Void, Never>?>(nil)
        let client = Self.client(Self.stub(gate)) { request, client in
            guard request.url.path == "/spawn" else { return }
            // A fire-and-forget kill switch (log first, then stop the client), as an interceptor would start it.
            killSwitch.withLock {
                $0 = Task {
                    await gate.pass()
                    await client.shutdown(gracePeriod: nil)
                }
            }
        }
        #expect(try await client.perform(Self.get("/spawn")).value.status == 200)
        #expect(client.calls.count == 0, "the call that started the kill switch has settled")
        let task = try #require(killSwitch.withLock { $0 })
        gate.open()
        await Self.waitUntilRefused(client)
        // Nothing runs any more: every shutdown has nothing to wait for.
        await withoutHanging("with no call running, a zero-grace shutdown and the kill switch's never returned") {
            await client.shutdown(gracePeriod: .zero)
            await task.value
        }
        client.cancelAll()
    }

    // Found by the review, fixed: a kill switch (nil grace) in a call of a concurrency-limited client deadlocks when another call waits for the slot the stopping call holds
    @Test("a kill switch in a call of a serial client, with another call queued behind it, returns")
    func killSwitchWithACallQueuedBehindIt() async throws {
        let gate = Gate()
        let client = Self.client(Self.stub(gate), concurrency: .serial) { request, client in
            guard request.url.path == "/gated-stop" else { return }
            await gate.pass()
            await client.shutdown(gracePeriod: nil)
        }
        let stopping = client.perform(Self.get("/gated-stop"))
        await gate.arrivals(1)
        let queued = client.perform(Self.get("/other"))
        while client.queuedCount < 1 { await Task.yield() }
        gate.open()
        let outcomes = await withoutHanging("the stopping call and the queued one never settled") {
            (
                await Self.outcome { try await stopping.value.status },
                await Self.outcome { try await queued.value.status }
            )
        }
        if let outcomes {
            #expect(outcomes.0 == "200", "the call that shut its client down goes on")
            #expect(outcomes.1 == "shutDown", "the queued call, not started, is refused")
        }
        client.cancelAll()  // release them, if they deadlocked
        _ = await Self.outcome { try await stopping.value.status }
    }

    // Found by the review, fixed: a call made from inside another call (an auth interceptor's nested send) that shuts the client down waits for the enclosing call, which waits for it: deadlock, even with grace .zero
    @Test(
        "a kill switch in a call nested in another call's interceptor returns, whatever the grace",
        arguments: [Duration.zero, .milliseconds(50)])
    func killSwitchInANestedCall(grace: Duration) async throws {
        let client = Self.client(Self.stub(Gate())) { request, client in
            switch request.url.path {
            case "/outer": _ = try await client.send(Self.get("/inner-stop"))
            case "/inner-stop": await client.shutdown(gracePeriod: grace)
            default: break
            }
        }
        let outer = client.perform(Self.get("/outer"))
        let outcome = await withoutHanging("the outer call, whose nested call shut the client down, never settled") {
            await Self.outcome { try await outer.value.status }
        }
        if outcome == nil {
            client.cancelAll()
            Issue.record("deadlocked: the nested call's shutdown waits for the outer call")
        }
    }

    /// A task executor that runs a job on the thread that enqueues it (later jobs enqueued meanwhile, after it): it
    /// makes deterministic an interleaving a loaded machine produces by chance — a call's task reaching its
    /// interceptors before the thread that started it has registered it (`RestingClient.call`: the promise's task
    /// is started, then `calls.register`).
    final class InlineExecutor: TaskExecutor {
        private let state = Locked<(running: Bool, jobs: [UnownedJob])>((false, []))

        func enqueue(_ job: consuming ExecutorJob) {
            let first = UnownedJob(job)
            let runsNow = state.withLock { state -> Bool in
                if state.running {
                    state.jobs.append(first)
                    return false
                }
                state.running = true
                return true
            }
            guard runsNow else { return }
            var next: UnownedJob? = first
            while let job = next {
                job.runSynchronously(on: asUnownedTaskExecutor())
                next = state.withLock { state -> UnownedJob? in
                    guard !state.jobs.isEmpty else {
                        state.running = false
                        return nil
                    }
                    return state.jobs.removeFirst()
                }
            }
        }
    }

    /// `stub`, with `executor` as the transport's executor.
    struct TransportWithExecutor: HTTPClient {
        let stub: StubHTTPClient
        let inline: InlineExecutor
        func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
            try await stub.send(request, progress: progress)
        }
        var executor: (any TaskExecutor)? { inline }
    }

    // Found by the review, fixed: a zero-grace kill switch fired by a call whose task runs before the call is registered (reserved) cancels that very call: cancelAll(sparingShutdownWaiters:) marks every .reserved call cancelledBeforeRegistration, the shutdown's own included
    @Test("a zero-grace kill switch in a call not yet registered spares that call")
    func killSwitchBeforeRegistration() async throws {
        let gate = Gate()
        let client = Self.client(TransportWithExecutor(stub: Self.stub(gate), inline: InlineExecutor())) {
            request, client in
            if request.url.path == "/slow/stop" { await client.shutdown(gracePeriod: .zero) }
        }
        let stopping = client.perform(Self.get("/slow/stop"))
        await gate.arrivals(1)
        gate.open()
        let outcome = await withoutHanging("the stopping call") {
            await Self.outcome { try await stopping.value.status }
        }
        #expect(outcome == "200", "the call that shut its client down was cancelled by its own shutdown")
        #expect(client.calls.count == 0)
    }

    @Test(
        "control (withstood): the same kill switch with a grace of nil, or on a transport without executor, spares the call"
    )
    func killSwitchBeforeRegistrationControl() async throws {
        for (grace, inline) in [(Duration?.none, true), (Duration?.some(.zero), false)] {
            let gate = Gate()
            let transport: any HTTPClient =
                inline ? TransportWithExecutor(stub: Self.stub(gate), inline: InlineExecutor()) : Self.stub(gate)
            let client = Self.client(transport) { request, client in
                if request.url.path == "/slow/stop" { await client.shutdown(gracePeriod: grace) }
            }
            let stopping = client.perform(Self.get("/slow/stop"))
            await gate.arrivals(1)
            gate.open()
            let outcome = await withoutHanging("the stopping call") {
                await Self.outcome { try await stopping.value.status }
            }
            #expect(outcome == "200")
        }
    }

    // MARK: - Attacks withstood

    @Test(
        "withstood: a grace of zero, less or one nanosecond cancels perform and send at once, and returns",
        arguments: [Duration.zero, .nanoseconds(-1), .seconds(-5), .seconds(Int64.min), .nanoseconds(1)])
    func noGrace(grace: Duration) async throws {
        let gate = Gate()  // never opened
        let client = Self.client(Self.stub(gate))
        let performed = client.perform(Self.get("/slow/perform"))
        let sent = Task { try await client.send(Self.get("/slow/send")).status }
        await gate.arrivals(2)
        await withoutHanging("zero-grace shutdown") { await client.shutdown(gracePeriod: grace) }
        #expect(client.calls.count == 0)
        #expect(await Self.outcome { try await performed.value.status } == "cancelled")
        #expect(await Self.outcome { try await sent.value } == "cancelled")
        await #expect { try await client.send(Self.get("/after")) } throws: { isRestingError($0, "shutDown") }
    }

    // Found by the review, fixed: a huge grace period (.seconds(Int64.max), "practically forever") traps the process: GracePeriod's timer Task.sleep(for:) overflows ("Not enough bits to represent the passed value")
    @Test("a huge grace period waits for the call and returns once it ends, without crashing the process")
    func hugeGrace() async throws {
        // In a child process: the trap happens in the grace timer's task and would take the test runner down.
        await #expect(processExitsWith: .success) {
            let gate = Gate()
            let client = Self.client(Self.stub(gate))
            let inFlight = client.perform(Self.get("/slow"))
            await gate.arrivals(1)
            // Several shutdowns, each with its own grace timer, and yields before the call may end: a timer cancelled
            // before it has started never sleeps (the trap is in the sleep), so every timer gets a chance to start.
            let shutdowns = (0..<8).map { _ in Task { await client.shutdown(gracePeriod: .seconds(Int64.max)) } }
            await Self.waitUntilRefused(client)
            for _ in 0..<1_000 { await Task.yield() }
            gate.open()
            #expect(await Self.outcome { try await inFlight.value.status } == "200")
            for shutdown in shutdowns { await shutdown.value }
        }
    }

    @Test(
        "withstood: a zero or negative grace from inside a call spares that call, cancels the others",
        arguments: [Duration.zero, .seconds(-1)], [false, true])
    func killSwitchWithoutGrace(grace: Duration, bySend: Bool) async throws {
        let gate = Gate()
        let client = Self.client(Self.stub(gate)) { request, client in
            if request.url.path == "/stop" { await client.shutdown(gracePeriod: grace) }
        }
        let other = client.perform(Self.get("/slow"))
        await gate.arrivals(1)
        let stopped = await withoutHanging("kill switch") {
            if bySend { return await Self.outcome { try await client.send(Self.get("/stop")).status } }
            return await Self.outcome { try await client.perform(Self.get("/stop")).value.status }
        }
        #expect(stopped == "200")
        #expect(await Self.outcome { try await other.value.status } == "cancelled")
        #expect(client.calls.count == 0)
    }

    @Test("withstood: a zero-grace shutdown cancels a call waiting for a concurrency slot, and the one holding it")
    func zeroGraceWithAQueuedCall() async throws {
        let gate = Gate()
        let client = Self.client(Self.stub(gate), concurrency: .serial)
        let holding = client.perform(Self.get("/slow"))
        await gate.arrivals(1)
        let queued = client.perform(Self.get("/slow/queued"))
        let queuedSend = Task { try await client.send(Self.get("/slow/queued-send")).status }
        while client.queuedCount < 2 { await Task.yield() }
        await withoutHanging("zero-grace shutdown") { await client.shutdown(gracePeriod: .zero) }
        #expect(await Self.outcome { try await holding.value.status } == "cancelled")
        #expect(await Self.outcome { try await queued.value.status } == "cancelled")
        #expect(await Self.outcome { try await queuedSend.value } == "cancelled")
        #expect(client.queuedCount == 0 && client.calls.count == 0)
    }

    /// A clock whose every wait says it has begun, and lasts an hour.
    struct SignallingClock: InterceptorClock {
        let began: AsyncStream<Void>.Continuation
        func sleep(for duration: Duration) async throws {
            began.yield()
            try await Task.sleep(for: .seconds(3600))
        }
        var now: Date { Date() }
    }

    @Test("withstood: a zero-grace shutdown while a retry waits out its backoff cancels the call")
    func zeroGraceDuringRetryBackoff() async throws {
        let (began, beginning) = AsyncStream<Void>.makeStream()
        let stub = StubHTTPClient { _ in .status(503) }
        let client = Self.client(stub, extra: [RetryInterceptor(clock: SignallingClock(began: beginning))])
        let call = client.perform(Self.get("/flaky"))
        for await _ in began { break }
        await withoutHanging("zero-grace shutdown during a backoff") { await client.shutdown(gracePeriod: .zero) }
        #expect(await Self.outcome { try await call.value.status } == "cancelled")
        #expect(client.calls.count == 0)
    }

    @MainActor
    static func shutdownOnTheMainActor(_ client: RestingClient, _ grace: Duration?) async {
        await client.shutdown(gracePeriod: grace)
    }

    @Test("withstood: many shutdowns at once (zero, nil, 1 ns; detached, main actor) racing calls being started")
    func shutdownStorm() async throws {
        let gate = Gate()  // never opened: no call can succeed
        let client = Self.client(Self.stub(gate))
        let outcomes = Locked<[String]>([])
        let finished = await withoutHanging("shutdown storm") {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let outcome: String
                        if index.isMultiple(of: 2) {
                            outcome = await Self.outcome {
                                try await client.perform(Self.get("/slow/\(index)")).value.status
                            }
                        } else {
                            outcome = await Self.outcome { try await client.send(Self.get("/slow/\(index)")).status }
                        }
                        outcomes.withLock { $0.append(outcome) }
                    }
                    if index.isMultiple(of: 10) {
                        let graces: [Duration?] = [nil, .zero, .nanoseconds(1), .zero]
                        let grace = graces[index / 10]
                        group.addTask { await client.shutdown(gracePeriod: grace) }
                        group.addTask { await Task.detached { await client.shutdown(gracePeriod: grace) }.value }
                        group.addTask { await Self.shutdownOnTheMainActor(client, grace) }
                    }
                }
                await group.waitForAll()
            }
            return true
        }
        #expect(finished == true)
        #expect(client.calls.count == 0)
        let all = outcomes.withLock { $0 }
        #expect(all.count == 40)
        #expect(all.allSatisfy { $0 == "cancelled" || $0 == "shutDown" }, "\(all)")
    }

    @Test("withstood: repeated kill switches from two calls at once with zero grace; both calls go on")
    func twoKillSwitchesWithoutGrace() async throws {
        let gate = Gate()
        let client = Self.client(Self.stub(gate)) { request, client in
            guard request.url.path.hasPrefix("/gated-stop") else { return }
            await gate.pass()
            for _ in 0..<3 { await client.shutdown(gracePeriod: .zero) }
        }
        let first = client.perform(Self.get("/gated-stop/1"))
        let second = Task { try await client.send(Self.get("/gated-stop/2")).status }
        await gate.arrivals(2)
        gate.open()
        let outcomes = await withoutHanging("two kill switches") {
            (await Self.outcome { try await first.value.status }, await Self.outcome { try await second.value })
        }
        // Each may cancel the other before the other has called shutdown: "cancelled" is allowed, a hang is not.
        if let outcomes {
            #expect(["200", "cancelled"].contains(outcomes.0) && ["200", "cancelled"].contains(outcomes.1))
            #expect(outcomes.0 == "200" || outcomes.1 == "200")
        }
        #expect(client.calls.count == 0)
    }
}

extension RestingClientShutdownTests.Gate {
    /// Waits for `count` arrivals.
    func arrivals(_ count: Int) async {
        var seen = 0
        for await _ in arrived {
            seen += 1
            if seen == count { return }
        }
    }
}
