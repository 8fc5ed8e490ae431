/// The calls of a client that have not settled, so that ``RestingClient/cancelAll()`` can reach them.
///
/// A call is reserved before the promise that runs it exists, and that promise may settle before it is
/// registered; a call that ``cancelAll()`` took settles later. Neither leaves anything behind: the registry holds
/// only calls that are still running.
final class CallRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        /// Calls that settled before they were registered, until they are.
        var settledEarly: Set<UInt64> = []
        /// Calls ``cancelAll()`` took that have not settled yet.
        var cancelling: Set<UInt64> = []
    }

    private let state = Locked(State())

    /// How many calls the registry holds (for tests).
    var count: Int { state.withLock { $0.cancels.count + $0.settledEarly.count + $0.cancelling.count } }

    func reserve() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Reserves and registers in one step, for a call that cannot settle before it is registered.
    func add(cancel: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.cancels[state.nextID] = cancel
            return state.nextID
        }
    }

    func register(_ id: UInt64, cancel: @escaping @Sendable () -> Void) {
        state.withLock { state in
            if state.settledEarly.remove(id) == nil { state.cancels[id] = cancel }
        }
    }

    func settle(_ id: UInt64) {
        state.withLock { state in
            if state.cancels.removeValue(forKey: id) == nil, state.cancelling.remove(id) == nil {
                state.settledEarly.insert(id)
            }
        }
    }

    func cancelAll() {
        let cancels = state.withLock { state in
            defer { state.cancels = [:] }
            state.cancelling.formUnion(state.cancels.keys)
            return state.cancels.values
        }
        for cancel in cancels { cancel() }
    }
}
