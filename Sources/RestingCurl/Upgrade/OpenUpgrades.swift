import RestingCore

/// The upgraded connections a ``CurlClient`` has handed out and that are still open: what its shutdown waits for,
/// and closes once the grace period has passed.
package final class OpenUpgrades: Sendable {
    private struct State {
        var closers: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Threads still in a connect-only `curl_easy_perform`.
        var connectingThreads = 0
    }

    private let state = Locked(State())

    /// Counts a connection open until `remove(_:)` with the id returned; `close` closes it (after the protocol's
    /// goodbye, where it has one).
    func add(close: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.closers[state.nextID] = close
            return state.nextID
        }
    }

    /// The connection `id` closed.
    func remove(_ id: UInt64) {
        let waiters = state.withLock { state in
            state.closers[id] = nil
            guard state.closers.isEmpty else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many are open.
    package var count: Int { state.withLock { $0.closers.count } }

    /// How many connecting threads are still at work (a cancelled handshake's too, until libcurl lets go).
    package var connectingThreads: Int { state.withLock { $0.connectingThreads } }

    /// A connecting thread starts (`+1`) or ends (`-1`).
    func countConnectingThread(_ change: Int) { state.withLock { $0.connectingThreads += change } }

    /// Closes every one, each after its protocol's goodbye (a WebSocket's close frame).
    func closeAll() {
        for close in state.withLock({ Array($0.closers.values) }) { close() }
    }

    /// Returns once none is open.
    func whenAllClosed() async {
        await withCheckedContinuation { continuation in
            let isEmpty = state.withLock { state in
                if state.closers.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if isEmpty { continuation.resume() }
        }
    }
}
