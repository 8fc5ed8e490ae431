/// A FIFO async semaphore whose waiters can be cancelled, and whose limit can change while calls hold or wait for
/// slots (an adaptive concurrency limit moves it).
package final class CallLimiter: Sendable {
    private typealias Waiter = CheckedContinuation<Bool, any Error>

    private struct State {
        var limit: Int
        var inUse = 0
        var queue: [(ticket: UInt64, waiter: Waiter)] = []
        /// Tickets issued whose caller has not yet queued or been admitted.
        var arriving: Set<UInt64> = []
        var cancelledOnArrival: Set<UInt64> = []
        var nextTicket: UInt64 = 0
        /// What a caller finding no free slot fails with, once waiting is refused; `nil` while callers may wait.
        var refusal: RestingError?

        /// Waiters to admit now that a slot may be free.
        mutating func admitted() -> [Waiter] {
            var admitted: [Waiter] = []
            while inUse < limit, !queue.isEmpty {
                inUse += 1
                admitted.append(queue.removeFirst().waiter)
            }
            return admitted
        }
    }

    private let state: Locked<State>

    package init(limit: Int) { state = Locked(State(limit: limit)) }

    /// Waits for a slot, in order of arrival; throws ``RestingError/cancelled`` if cancelled while waiting.
    nonisolated(nonsending) func acquire() async throws { _ = try await acquire(queueLimit: .max) }

    /// Waits for a slot, in order of arrival, unless `queueLimit` callers wait already: then `false` at once. Throws
    /// ``RestingError/cancelled`` if cancelled while waiting. On the caller's executor: a slot free at once costs no
    /// executor switch.
    nonisolated(nonsending) package func acquire(queueLimit: Int) async throws -> Bool {
        // Without a continuation to suspend on when a slot is free.
        if acquireAtOnce() { return true }
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            state.arriving.insert(state.nextTicket)
            return state.nextTicket
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let admitted: Result<Bool, RestingError>? = state.withLock { state in
                    state.arriving.remove(ticket)
                    if state.cancelledOnArrival.remove(ticket) != nil { return .failure(.cancelled) }
                    if state.inUse < state.limit, state.queue.isEmpty {
                        state.inUse += 1
                        return .success(true)
                    }
                    if let refusal = state.refusal { return .failure(refusal) }
                    guard state.queue.count < queueLimit else { return .success(false) }
                    state.queue.append((ticket, waiter))
                    return nil
                }
                if let admitted { waiter.resume(with: admitted) }
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

    /// Takes a slot when one is free and no caller waits for one or has a ticket for one (taking it then would pass
    /// them); `false`, and nothing taken, otherwise — and for a cancelled caller, which ``acquire(queueLimit:)``
    /// then fails.
    package func acquireAtOnce() -> Bool {
        guard !Task.isCancelled else { return false }
        return state.withLock { state in
            guard state.inUse < state.limit, state.queue.isEmpty, state.arriving.isEmpty else { return false }
            state.inUse += 1
            return true
        }
    }

    /// Callers waiting for a slot.
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Slots held.
    package var inUse: Int { state.withLock { $0.inUse } }

    /// Hands the slot to the next waiter, or frees it.
    package func release() {
        let next = state.withLock { state in
            state.inUse -= 1
            return state.admitted()
        }
        for waiter in next { waiter.resume(returning: true) }
    }

    /// From now on a caller that finds no free slot fails with `error` rather than wait, and so does every caller
    /// waiting now: what a client shut down from inside one of its calls does, whose slot they could wait for for ever.
    package func refuseWaiting(with error: RestingError) {
        let refused = state.withLock { state in
            state.refusal = error
            defer { state.queue.removeAll() }
            return state.queue.map(\.waiter)
        }
        for waiter in refused { waiter.resume(throwing: error) }
    }

    /// Moves the limit to `limit`: waiters are admitted while slots are free; holders over a lowered limit keep
    /// their slots, and no one is admitted until they are under it.
    package func setLimit(_ limit: Int) {
        let admitted = state.withLock { state in
            state.limit = limit
            return state.admitted()
        }
        for waiter in admitted { waiter.resume(returning: true) }
    }
}
