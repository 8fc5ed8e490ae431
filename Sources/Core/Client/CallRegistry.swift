/// The calls of a client that have not settled, so that ``RestingClient/cancelAll()`` can reach them.
///
/// A call is reserved before the promise that runs it exists, and that promise may settle before it is
/// registered; a call that ``cancelAll()`` took settles later. Neither leaves anything behind: the registry holds
/// only calls that are still running. Once shut down it takes no new call, and tells whoever waits when the last
/// one has settled: a new call and the shutdown meet under one lock, so none slips in after the wait began.
final class CallRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        /// Calls that settled before they were registered, until they are.
        var settledEarly: Set<UInt64> = []
        /// Calls ``cancelAll()`` took that have not settled yet.
        var cancelling: Set<UInt64> = []
        /// Calls reserved and not yet registered.
        var reserved = 0
        var isShutDown = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        var count: Int { cancels.count + settledEarly.count + cancelling.count + reserved }

        /// The waiters to resume, once shut down and every call has settled.
        mutating func takeWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard isShutDown, count == 0, !idleWaiters.isEmpty else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
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
            state.reserved += 1
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

    func register(_ id: UInt64, cancel: @escaping @Sendable () -> Void) {
        let waiters = state.withLock { state in
            state.reserved -= 1
            if state.settledEarly.remove(id) == nil { state.cancels[id] = cancel }
            return state.takeWaitersIfIdle()
        }
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

    func cancelAll() {
        let cancels = state.withLock { state in
            defer { state.cancels = [:] }
            state.cancelling.formUnion(state.cancels.keys)
            return state.cancels.values
        }
        for cancel in cancels { cancel() }
    }

    /// Takes no more calls, and returns once every call made before has settled.
    func shutDown() async {
        await withCheckedContinuation { continuation in
            let isIdle = state.withLock { state in
                state.isShutDown = true
                guard state.count > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }
}
