/// The calls of a client that have not settled, so that ``RestingClient/cancelAll()`` can reach them.
///
/// A call is reserved before the promise that runs it exists, and that promise may settle before it is
/// registered; a call that ``cancelAll()`` took settles later. Neither leaves anything behind: the registry holds
/// only calls that are still running. Once shut down it takes no new call, and tells whoever waits when the last
/// one has settled: a new call and the shutdown meet under one lock, so none slips in after the wait began.
///
/// A call can shut its own client down (an interceptor's kill switch): it cannot settle while it waits, so the wait
/// leaves out every call that is itself waiting for the shutdown — known by ``current``, which each call's work runs
/// with.
final class CallRegistry: Sendable {
    /// A call of one registry: what the work of a call runs with, so that a shutdown from inside it knows the call.
    struct Membership: Sendable {
        let registry: ObjectIdentifier
        let id: UInt64
    }

    /// The call the current task runs for (inherited by the tasks it starts), if any.
    @TaskLocal static var current: Membership?

    private struct State {
        var nextID: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        /// Calls that settled before they were registered, until they are.
        var settledEarly: Set<UInt64> = []
        /// Calls ``cancelAll()`` took that have not settled yet.
        var cancelling: Set<UInt64> = []
        /// Calls reserved and not yet registered.
        var reserved: Set<UInt64> = []
        /// Reserved calls that ``cancelAll()`` reached before they were registered: cancelled as they are.
        var cancelledBeforeRegistration: Set<UInt64> = []
        var isShutDown = false
        /// Who waits for the shutdown: a call of this registry (its id), or anyone else (`nil`).
        var idleWaiters: [(continuation: CheckedContinuation<Void, Never>, call: UInt64?)] = []
        /// Running calls that wait for the shutdown themselves: not waited for by each other.
        var waitingForShutdown: Set<UInt64> = []

        var count: Int { cancels.count + settledEarly.count + cancelling.count + reserved.count }

        /// The waiters to resume, once shut down: a call waiting for the shutdown once every other call has settled
        /// but those waiting too; anyone else once every call has (the calls that waited go on to their end first).
        mutating func takeWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard isShutDown, count == waitingForShutdown.count, !idleWaiters.isEmpty else { return [] }
            let everyCallSettled = count == 0
            var taken: [CheckedContinuation<Void, Never>] = []
            idleWaiters.removeAll { waiter in
                guard waiter.call != nil || everyCallSettled else { return false }
                taken.append(waiter.continuation)
                return true
            }
            return taken
        }
    }

    private let state = Locked(State())

    /// How many calls the registry holds (for tests).
    var count: Int { state.withLock { $0.count } }

    /// An id for a call about to be made, counted as running until it is registered; `nil` once shut down.
    func reserve() -> UInt64? {
        state.withLock { state in
            guard !state.isShutDown else { return nil }
            defer { state.nextID += 1 }
            state.reserved.insert(state.nextID)
            return state.nextID
        }
    }

    /// Reserves and registers in one step, for a call that cannot settle before it is registered; `nil` once shut
    /// down.
    func add(cancel: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state in
            guard !state.isShutDown else { return nil }
            defer { state.nextID += 1 }
            state.cancels[state.nextID] = cancel
            return state.nextID
        }
    }

    /// Makes reserved call `id` reachable by ``cancelAll()`` through `cancel` — which runs at once if a
    /// ``cancelAll()`` came between the reservation and now (the call's task may well have been running already).
    func register(_ id: UInt64, cancel: @escaping @Sendable () -> Void) {
        let (waiters, cancelsNow) = state.withLock { state in
            state.reserved.remove(id)
            let cancelled = state.cancelledBeforeRegistration.remove(id) != nil
            if state.settledEarly.remove(id) != nil { return (state.takeWaitersIfIdle(), false) }
            if cancelled {
                state.cancelling.insert(id)
            } else {
                state.cancels[id] = cancel
            }
            return (state.takeWaitersIfIdle(), cancelled)
        }
        if cancelsNow { cancel() }
        for waiter in waiters { waiter.resume() }
    }

    func settle(_ id: UInt64) {
        let waiters = state.withLock { state in
            if state.cancels.removeValue(forKey: id) == nil, state.cancelling.remove(id) == nil {
                state.settledEarly.insert(id)
            }
            return state.takeWaitersIfIdle()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels every running call — but those waiting for the shutdown themselves, when a shutdown's grace period
    /// ends (`sparingShutdownWaiters`): each made the shutdown, and goes on once it returns.
    func cancelAll(sparingShutdownWaiters: Bool = false) {
        let cancels = state.withLock { state in
            let taken = state.cancels.filter { id, _ in
                !sparingShutdownWaiters || !state.waitingForShutdown.contains(id)
            }
            for id in taken.keys { state.cancels[id] = nil }
            state.cancelling.formUnion(taken.keys)
            // Not registered yet, so not waiting for a shutdown either.
            state.cancelledBeforeRegistration.formUnion(state.reserved)
            return taken.values
        }
        for cancel in cancels { cancel() }
    }

    /// `work` as the call `id` of this registry (see ``current``).
    func running<Value>(_ id: UInt64, _ work: () async throws -> Value) async rethrows -> Value {
        try await Self.$current.withValue(Membership(registry: ObjectIdentifier(self), id: id), operation: work)
    }

    /// Takes no more calls, and returns once every call made before has settled — but the one it is called from, if
    /// any, and every other that waits for the shutdown too.
    func shutDown() async {
        let own = Self.current.flatMap { $0.registry == ObjectIdentifier(self) ? $0.id : nil }
        await withCheckedContinuation { continuation in
            let waiters = state.withLock { state in
                state.isShutDown = true
                if let own { state.waitingForShutdown.insert(own) }
                state.idleWaiters.append((continuation, own))
                return state.takeWaitersIfIdle()
            }
            for waiter in waiters { waiter.resume() }
        }
        if let own { state.withLock { _ = $0.waitingForShutdown.remove(own) } }
    }
}
