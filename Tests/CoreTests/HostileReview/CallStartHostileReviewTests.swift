import Dispatch
import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// Hostile review of d1d139b: a call's task started inside `CallRegistry.starting(_:_:)` (its membership bound around
/// the task's creation, in the caller's context, and so already while the call waits for a concurrency slot).
///
/// The first and the queued-call case failed before their fixes (a hang; a waiting call failed shutDown); the others
/// are attacks the code withstood.
@Suite("Call start inside its membership: hostile review", .serialized, .timeLimit(.minutes(5)))
struct CallStartHostileReviewTests {
    typealias Gate = RestingClientShutdownTests.Gate
    typealias Review = ShutdownGraceHostileReviewTests

    /// The outcomes of `stopper`, whose call shuts its client down with no grace, and of `other`, held at `gate`:
    /// `other`'s first (the shutdown cancels it), then `stopper`'s once the gate opens; `nil` when either hangs.
    static func outcomes(
        of stopper: ProgressablePromise<RestingResponse<Data>>, other: ProgressablePromise<RestingResponse<Data>>,
        opening gate: Gate
    ) async -> (String, String)? {
        await withoutHanging("the kill switch or a call never ended") {
            let other = await Review.outcome { try await other.value.status }
            gate.open()
            return (await Review.outcome { try await stopper.value.status }, other)
        }
    }

    enum Nesting: String, CaseIterable, Sendable { case perform, send }

    @Test(
        "a kill switch of client 1 fired from a client-2 call nested in a client-1 call returns",
        arguments: Nesting.allCases)
    func killSwitchAcrossClients(nesting: Nesting) async throws {
        let first = Locked<RestingClient?>(nil)
        let second = Locked<RestingClient?>(nil)
        let client1 = Review.client(Review.stub(Gate())) { request, _ in
            guard request.url.path == "/outer", let client2 = second.withLock({ $0 }) else { return }
            switch nesting {
            case .perform: _ = try await client2.perform(Review.get("/inner-stop")).value
            case .send: _ = try await client2.send(Review.get("/inner-stop"))
            }
        }
        let client2 = Review.client(Review.stub(Gate())) { request, _ in
            guard request.url.path == "/inner-stop", let client1 = first.withLock({ $0 }) else { return }
            await client1.shutdown(gracePeriod: .zero)
        }
        first.withLock { $0 = client1 }
        second.withLock { $0 = client2 }
        // Each box closes a cycle (a client, its interceptor, the box, the other client): opened at the end, or
        // LeakSanitizer reports both clients.
        defer { first.withLock { $0 = nil } }
        defer { second.withLock { $0 = nil } }
        let outer = client1.perform(Review.get("/outer"))
        let outcome = await withoutHanging("client 1's call, whose client-2 call shut client 1 down, never settled") {
            await Review.outcome { try await outer.value.status }
        }
        if outcome == nil {
            client1.cancelAll()
            client2.cancelAll()
        } else {
            #expect(outcome == "200")
        }
    }

    @Test("withstood: a call of client 1 shutting client 2 down spares none of client 2's calls, and is not waited for")
    func killSwitchOfAnotherClientSparesNothing() async throws {
        let gate = Gate()
        let client2 = Review.client(Review.stub(gate))
        let client1 = Review.client(Review.stub(Gate())) { request, _ in
            if request.url.path == "/stop-other" { await client2.shutdown(gracePeriod: .zero) }
        }
        let victim = client2.perform(Review.get("/slow-victim"))
        await gate.arrivals(1)
        let stopper = client1.perform(Review.get("/stop-other"))
        let outcomes = await withoutHanging("the shutdown of another client, from a call, never returned") {
            (
                await Review.outcome { try await stopper.value.status },
                await Review.outcome { try await victim.value.status }
            )
        }
        #expect(outcomes?.0 == "200")
        #expect(outcomes?.1 == "cancelled")
        #expect(client2.calls.count == 0)
        #expect(Review.refused(client2))
        #expect(!Review.refused(client1))
    }

    @Test("withstood: a kill switch in a Task.detached started by a call does not spare that call")
    func detachedKillSwitchDoesNotSpare() async throws {
        let gate = Gate()
        let killSwitch = Locked<Task<Void, Never>?>(nil)
        let client = Review.client(Review.stub(gate)) { request, client in
            guard request.url.path == "/slow-detach" else { return }
            killSwitch.withLock { $0 = Task.detached { await client.shutdown(gracePeriod: .zero) } }
        }
        let call = client.perform(Review.get("/slow-detach"))
        let outcome = await withoutHanging("the detached kill switch or its call never ended") {
            let outcome = await Review.outcome { try await call.value.status }
            while killSwitch.withLock({ $0 }) == nil { await Task.yield() }
            await killSwitch.withLock({ $0 })!.value
            return outcome
        }
        #expect(outcome == "cancelled", "a detached task is not the call: zero grace cancels it")
        #expect(client.calls.count == 0)
        gate.open()
    }

    enum Spawn: String, CaseIterable, Sendable { case unstructured, taskGroup, asyncLet, nestedPerform }

    @Test(
        "withstood: a zero-grace kill switch from a task the call started spares it, cancels the others",
        arguments: Spawn.allCases)
    func killSwitchFromSpawnedWork(spawn: Spawn) async throws {
        let gate = Gate()
        let client = Review.client(Review.stub(gate)) { request, client in
            switch request.url.path {
            case "/slow-stop":
                switch spawn {
                case .unstructured: await Task { await client.shutdown(gracePeriod: .zero) }.value
                case .taskGroup:
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask { await client.shutdown(gracePeriod: .zero) }
                    }
                case .asyncLet:
                    async let stopped: Void = client.shutdown(gracePeriod: .zero)
                    await stopped
                case .nestedPerform: _ = try await client.perform(Review.get("/inner-stop")).value
                }
            case "/inner-stop": await client.shutdown(gracePeriod: .zero)
            default: break
            }
        }
        let other = client.perform(Review.get("/slow-other"))
        await gate.arrivals(1)
        let stopper = client.perform(Review.get("/slow-stop"))
        let outcomes = await Self.outcomes(of: stopper, other: other, opening: gate)
        #expect(outcomes?.0 == "200", "the call whose task shut its client down goes on")
        #expect(outcomes?.1 == "cancelled")
        #expect(client.calls.count == 0)
        await withoutHanging("a later shutdown, with nothing running") { await client.shutdown(gracePeriod: nil) }
        if outcomes == nil { client.cancelAll() }
    }

    @Test("withstood: a call made on a thread with no task keeps its membership: its kill switch spares it")
    func callMadeOutsideAnyTask() async throws {
        let gate = Gate()
        let client = Review.client(Review.stub(gate)) { request, client in
            if request.url.path == "/slow-stop" { await client.shutdown(gracePeriod: .zero) }
        }
        let other = client.perform(Review.get("/slow-other"))
        await gate.arrivals(1)
        let stopper: ProgressablePromise<RestingResponse<Data>> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: client.perform(Review.get("/slow-stop"))) }
        }
        let outcomes = await Self.outcomes(of: stopper, other: other, opening: gate)
        #expect(outcomes?.0 == "200", "the call made off any task shut its client down from inside: spared")
        #expect(outcomes?.1 == "cancelled")
        #expect(client.calls.count == 0)
    }

    @Test(
        "withstood: perform in a task group's body binds nothing past it; a child's zero-grace shutdown cancels the call"
    )
    func performInsideATaskGroupBody() async throws {
        let gate = Gate()
        let client = Review.client(Review.stub(gate))
        let outcome = await withoutHanging("the group never ended") {
            await withTaskGroup(of: Void.self, returning: String.self) { group in
                let call = client.perform(Review.get("/slow-a"))
                #expect(CallRegistry.current == nil, "the membership binding ends with the call's start")
                await gate.arrivals(1)
                group.addTask { await client.shutdown(gracePeriod: .zero) }
                let outcome = await Review.outcome { try await call.value.status }
                await group.waitForAll()
                return outcome
            }
        }
        #expect(outcome == "cancelled")
        #expect(client.calls.count == 0)
        gate.open()
    }

    @Test("a kill switch from the listener of a queued call that was cancelled leaves the other queued calls to run")
    func listenerKillSwitchOfAQueuedCall() async throws {
        let gate = Gate()
        let box = Locked<RestingClient?>(nil)
        let killSwitch = Locked<Task<Void, Never>?>(nil)
        let listener = EventListenerFactory.shared { event in
            // Call 1 (the second made) is the queued one cancelled below.
            guard event.callID == 1, event.kind.isTerminal, let client = box.withLock({ $0 }) else { return }
            killSwitch.withLock { $0 = Task { await client.shutdown(gracePeriod: nil) } }
            // The kill switch logged first: wait until it has begun, as a synchronous logger would take its time.
            while !Review.refused(client) {}
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Review.stub(gate), concurrency: .serial,
            eventListener: listener)
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }  // the box closes a cycle: client, listener, box
        let holder = client.perform(Review.get("/slow-holder"))
        await gate.arrivals(1)
        let cancelled = client.perform(Review.get("/queued-cancelled"))
        while client.queuedCount < 1 { await Task.yield() }
        let waiting = client.perform(Review.get("/queued-waiting"))
        while client.queuedCount < 2 { await Task.yield() }
        cancelled.cancel()
        let outcomes = await withoutHanging("the calls or the kill switch never ended") {
            let first = await Review.outcome { try await cancelled.value.status }
            await Review.waitUntilRefused(client)
            gate.open()
            let holder = await Review.outcome { try await holder.value.status }
            let waiting = await Review.outcome { try await waiting.value.status }
            while killSwitch.withLock({ $0 }) == nil { await Task.yield() }
            await killSwitch.withLock({ $0 })!.value
            return (first, holder, waiting)
        }
        #expect(outcomes?.0 == "cancelled")
        #expect(outcomes?.1 == "200")
        #expect(
            outcomes?.2 == "200", "a call made before the shutdown runs to its end: the cancelled call held no slot")
        #expect(client.calls.count == 0)
        if outcomes == nil { client.cancelAll() }
    }

    @Test("withstood: a listener's kill switch during a call's exchange spares that call and cancels the others")
    func listenerKillSwitchDuringTheExchange() async throws {
        let gate = Gate()
        let box = Locked<RestingClient?>(nil)
        let killSwitch = Locked<Task<Void, Never>?>(nil)
        let listener = EventListenerFactory.shared { event in
            guard case .exchangeStarted(_, let url, _) = event.kind, url.contains("slow-kill"),
                let client = box.withLock({ $0 })
            else { return }
            killSwitch.withLock { $0 = Task { await client.shutdown(gracePeriod: .zero) } }
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Review.stub(gate), eventListener: listener)
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }  // the box closes a cycle: client, listener, box
        let other = client.perform(Review.get("/slow-other"))
        await gate.arrivals(1)
        let killer = client.perform(Review.get("/slow-kill"))
        let outcomes = await withoutHanging("the calls or the kill switch never ended") {
            let other = await Review.outcome { try await other.value.status }
            while killSwitch.withLock({ $0 }) == nil { await Task.yield() }
            await killSwitch.withLock({ $0 })!.value
            gate.open()
            return (await Review.outcome { try await killer.value.status }, other)
        }
        #expect(outcomes?.0 == "200", "the listener's call is spared")
        #expect(outcomes?.1 == "cancelled")
        #expect(client.calls.count == 0)
        if outcomes == nil { client.cancelAll() }
    }
}
