/// The calls of a client that have not settled, so that ``RestingClient/cancelAll()`` can reach them.
final class CallRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        /// Calls that settled before they were registered.
        var settledEarly: Set<UInt64> = []
    }

    private let state = Locked(State())

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
            if state.cancels.removeValue(forKey: id) == nil { state.settledEarly.insert(id) }
        }
    }

    func cancelAll() {
        let cancels = state.withLock { state in
            defer { state.cancels = [:] }
            return state.cancels.values
        }
        for cancel in cancels { cancel() }
    }
}
