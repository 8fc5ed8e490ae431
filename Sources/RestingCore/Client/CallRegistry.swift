/// The calls of a client that have not settled, so that ``RestingClient/cancelAll()`` can reach them.
///
/// A call is reserved before the promise that runs it exists, and that promise may settle before it is
/// registered; a call that ``cancelAll()`` took settles later. Neither leaves anything behind: the registry holds
/// only calls that are still running. Once shut down it takes no new call, and tells whoever waits when the last
/// one has settled: a new call and the shutdown meet under one lock, so none slips in after the wait began.
///
/// A call can shut its own client down (an interceptor's kill switch): it cannot settle while it waits, so the wait
/// leaves out every call that is itself waiting for the shutdown — known by ``current``, which each call's work runs
/// with — and the calls it runs inside (a call made from another's interceptor), which wait for it.
package final class CallRegistry: Sendable {
    /// A call of one registry: what the work of a call runs with, so that a shutdown from inside it knows the call.
    struct Membership: Sendable {
        let registry: ObjectIdentifier
        let id: UInt64
        /// The calls of the same registry this one was made inside, outermost first (empty for most calls: no
        /// allocation).
        let enclosing: [UInt64]
        /// The calls of other registries this one was made inside (a call of one client made in another's
        /// interceptor), one membership each, without their own `others`: a shutdown of that client from in here
        /// must still know its call, which waits for this one (empty for most calls: no allocation).
        let others: [Membership]

        /// This call and those it runs inside.
        var chain: [UInt64] { enclosing + [id] }

        /// The calls of `registry` the task runs inside, outermost first.
        func chain(in registry: ObjectIdentifier) -> [UInt64] {
            registry == self.registry ? chain : others.first { $0.registry == registry }?.chain ?? []
        }

        /// The membership of call `id` of `registry`, made inside this one.
        func inside(_ registry: ObjectIdentifier, id: UInt64) -> Membership {
            guard registry != self.registry else {
                return Membership(registry: registry, id: id, enclosing: chain, others: others)
            }
            let outer = Membership(registry: self.registry, id: self.id, enclosing: enclosing, others: [])
            return Membership(
                registry: registry, id: id, enclosing: chain(in: registry),
                others: [outer] + others.filter { $0.registry != registry })
        }
    }

    /// The call the current task runs for (inherited by the tasks it starts), if any.
    @TaskLocal static var current: Membership?

    /// Where one call is, with what that phase holds.
    private enum Phase {
        /// Reserved, not registered yet.
        case reserved
        /// Reserved, and reached by ``cancelAll()`` before it was registered: cancelled as it registers.
        case cancelledBeforeRegistration
        /// Settled before it was registered: gone once it registers.
        case settledEarly
        /// Registered, and cancelled through `cancel` by ``cancelAll()``.
        case running(cancel: @Sendable () -> Void)
        /// Taken by ``cancelAll()``, not settled yet.
        case cancelling
    }

    /// A shutdown under way: who waits for it, and which calls are among them.
    private struct Shutdown {
        /// Calls of this registry that have not settled (with those they run inside), or anyone else (`[]`).
        var waiters: [(continuation: CheckedContinuation<Void, Never>, calls: [UInt64])] = []
        /// Running calls that wait for the shutdown themselves, or run a call that does: not waited for by each
        /// other. A call leaves the set when it settles (a task it started may still be waiting).
        var waitingCalls: Set<UInt64> = []
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Every call that has not settled, and the settled ones not yet registered.
        var calls: [UInt64: Phase] = [:]
        /// `nil` while the registry takes calls.
        var shutdown: Shutdown?

        /// A new call's id in `phase`; `nil` once shut down.
        mutating func add(_ phase: Phase) -> UInt64? {
            guard shutdown == nil else { return nil }
            defer { nextID += 1 }
            calls[nextID] = phase
            return nextID
        }

        /// The waiters to resume, once shut down: a call waiting for the shutdown once every other call has settled
        /// but those waiting too; anyone else once every call has (the calls that waited go on to their end first).
        mutating func takeWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard var shutdown, calls.count == shutdown.waitingCalls.count, !shutdown.waiters.isEmpty else { return [] }
            let everyCallSettled = calls.isEmpty
            var taken: [CheckedContinuation<Void, Never>] = []
            shutdown.waiters.removeAll { waiter in
                guard everyCallSettled || waiter.calls.contains(where: shutdown.waitingCalls.contains) else {
                    return false
                }
                taken.append(waiter.continuation)
                return true
            }
            self.shutdown = shutdown
            return taken
        }
    }

    private let state = Locked(State())

    /// How many calls the registry holds (for tests).
    var count: Int { state.withLock { $0.calls.count } }

    /// An id for a call about to be made, counted as running until it is registered; `nil` once shut down.
    func reserve() -> UInt64? {
        state.withLock { $0.add(.reserved) }
    }

    /// Reserves and registers in one step, for a call that cannot settle before it is registered; `nil` once shut
    /// down.
    package func add(cancel: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { $0.add(.running(cancel: cancel)) }
    }

    /// Makes reserved call `id` reachable by ``cancelAll()`` through `cancel` — which runs at once if a
    /// ``cancelAll()`` came between the reservation and now (the call's task may well have been running already).
    func register(_ id: UInt64, cancel: @escaping @Sendable () -> Void) {
        let (waiters, cancelsNow) = state.withLock { state in
            var cancelsNow = false
            switch state.calls[id] {
            case .reserved?: state.calls[id] = .running(cancel: cancel)
            case .cancelledBeforeRegistration?:
                state.calls[id] = .cancelling
                cancelsNow = true
            case .settledEarly?: state.calls[id] = nil
            case .running?, .cancelling?, nil: break
            }
            return (state.takeWaitersIfIdle(), cancelsNow)
        }
        if cancelsNow { cancel() }
        for waiter in waiters { waiter.resume() }
    }

    package func settle(_ id: UInt64) {
        let waiters = state.withLock { state in
            switch state.calls[id] {
            case .reserved?, .cancelledBeforeRegistration?: state.calls[id] = .settledEarly
            case .running?, .cancelling?, .settledEarly?, nil: state.calls[id] = nil
            }
            // A call waits for the shutdown no longer once it has settled — a task it started may, though.
            state.shutdown?.waitingCalls.remove(id)
            return state.takeWaitersIfIdle()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels every running call — but those waiting for the shutdown themselves, when a shutdown's grace period
    /// ends (`sparingShutdownWaiters`): each made the shutdown, and goes on once it returns.
    func cancelAll(sparingShutdownWaiters: Bool = false) {
        let cancels = state.withLock { state in
            let spared = sparingShutdownWaiters ? state.shutdown?.waitingCalls ?? [] : []
            var taken: [@Sendable () -> Void] = []
            for index in state.calls.values.indices {
                switch state.calls.values[index] {
                case .running(let cancel) where !spared.contains(state.calls.keys[index]):
                    taken.append(cancel)
                    state.calls.values[index] = .cancelling
                // Not registered yet: its task may have started all the same, and be the one shutting down.
                case .reserved where !spared.contains(state.calls.keys[index]):
                    state.calls.values[index] = .cancelledBeforeRegistration
                case .running, .reserved, .cancelledBeforeRegistration, .settledEarly, .cancelling: break
                }
            }
            return taken
        }
        for cancel in cancels { cancel() }
    }

    /// Whether the current task runs one of this registry's calls that has not settled (or a call made inside one).
    var isInsideARunningCall: Bool {
        let chain = currentChain
        return !chain.isEmpty && state.withLock { state in chain.contains { state.calls[$0] != nil } }
    }

    /// The call of this registry the current task runs for and those it was made inside, outermost first; empty
    /// outside them.
    private var currentChain: [UInt64] {
        Self.current?.chain(in: ObjectIdentifier(self)) ?? []
    }

    /// `work` as the call `id` of this registry (see ``current``), inside the call of this registry it was made in,
    /// if any.
    func running<Value>(_ id: UInt64, _ work: () async throws -> Value) async rethrows -> Value {
        try await Self.$current.withValue(membership(of: id), operation: work)
    }

    /// `start`, which starts the task of call `id`, with the current task its membership: the task copies it when
    /// it starts, so its frames do not hold the binding's while the call waits — `running(_:_:)` costs a waiting
    /// call six frames, 576 bytes of them, and a slab of its task's more. Only for a call that needs no slot of a
    /// concurrency limit: a call waiting for one is not yet among the running calls a shutdown from inside spares.
    func starting<Started>(_ id: UInt64, _ start: () -> Started) -> Started {
        Self.$current.withValue(membership(of: id), operation: start)
    }

    /// Call `id`'s membership, inside the call of this registry the current task runs, if any. Apart from
    /// ``running(_:_:)``, whose frame every call holds while it waits: the task-local read inlined there cost the
    /// hedging link one more allocation a call.
    @inline(never)
    private func membership(of id: UInt64) -> Membership {
        Self.current?.inside(ObjectIdentifier(self), id: id)
            ?? Membership(registry: ObjectIdentifier(self), id: id, enclosing: [], others: [])
    }

    /// Takes no more calls, and returns once every call made before has settled — but the one it is called from, if
    /// any, and every other that waits for the shutdown too. Once `gracePeriod` has passed (at once for zero), the
    /// calls still running are cancelled, but those waiting for the shutdown themselves.
    func shutDown(gracePeriod: Duration?) async {
        let chain = currentChain
        var own: [UInt64] = []
        var deadline: GracePeriod?
        await withCheckedContinuation { continuation in
            let waiters = state.withLock { state in
                var shutdown = state.shutdown ?? Shutdown()
                // Only calls still there: a task a call started may shut the client down after the call ended.
                own = chain.filter { state.calls[$0] != nil }
                shutdown.waitingCalls.formUnion(own)
                shutdown.waiters.append((continuation, own))
                state.shutdown = shutdown
                return state.takeWaitersIfIdle()
            }
            // Started only once the shutdown is recorded with the call it comes from: the one the deadline spares.
            deadline = GracePeriod(gracePeriod) { [self] in cancelAll(sparingShutdownWaiters: true) }
            for waiter in waiters { waiter.resume() }
        }
        deadline?.cancel()
        if !own.isEmpty { state.withLock { $0.shutdown?.waitingCalls.subtract(own) } }
    }
}
