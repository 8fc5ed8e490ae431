/// How many calls of one ``RestingClient`` may be in flight at once (Malibu's `async`, `sync` and `limited`).
/// Calls beyond the limit wait in order of arrival; cancelling a waiting call removes it from the queue.
public enum ConcurrencyMode: Sendable, Equatable {
    case unlimited
    /// One call at a time.
    case serial
    case limited(Int)

    var limit: Int? {
        switch self {
        case .unlimited: nil
        case .serial: 1
        case .limited(let count): max(1, count)
        }
    }
}

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
