/// A FIFO async semaphore whose waiters can be cancelled.
final class CallLimiter: Sendable {
    private typealias Waiter = CheckedContinuation<Void, any Error>

    private struct State {
        var available: Int
        var queue: [(ticket: UInt64, waiter: Waiter)] = []
        /// Tickets issued whose caller has not yet queued or been admitted.
        var arriving: Set<UInt64> = []
        var cancelledOnArrival: Set<UInt64> = []
        var nextTicket: UInt64 = 0
    }

    private let state: Locked<State>

    init(limit: Int) { state = Locked(State(available: limit)) }

    /// Waits for a slot, in order of arrival; throws ``RestingError/cancelled`` if cancelled while waiting.
    func acquire() async throws {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            state.arriving.insert(state.nextTicket)
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let admitted: Bool? = state.withLock { state in
                    state.arriving.remove(ticket)
                    if state.cancelledOnArrival.remove(ticket) != nil { return false }
                    if state.available > 0, state.queue.isEmpty {
                        state.available -= 1
                        return true
                    }
                    state.queue.append((ticket, waiter))
                    return nil
                }
                switch admitted {
                case true?: waiter.resume()
                case false?: waiter.resume(throwing: RestingError.cancelled)
                case nil: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.queue.firstIndex(where: { $0.ticket == ticket }) {
                    return state.queue.remove(at: index).waiter
                }
                if state.arriving.contains(ticket) { state.cancelledOnArrival.insert(ticket) }
                return nil
            }
            waiter?.resume(throwing: RestingError.cancelled)
        }
    }

    /// Callers waiting for a slot.
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Hands the slot to the next waiter, or frees it.
    func release() {
        let next: Waiter? = state.withLock { state in
            guard !state.queue.isEmpty else {
                state.available += 1
                return nil
            }
            return state.queue.removeFirst().waiter
        }
        next?.resume()
    }
}
