import RestingCore

/// Lets a WebSocket's writes through one at a time, in the order they asked, so that frames never interleave on
/// the wire: a sender waits its turn (cancellably), writes, and hands the turn on.
final class WebSocketSendGate: Sendable {
    private struct State {
        var isBusy = false
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Waits for the turn; ``/RestingCore/RestingError/cancelled`` if the task is cancelled first. Call ``leave()`` after.
    func enter() async throws {
        // The common case, a free gate, takes the turn without suspending.
        let (entered, id) = state.withLock { state in
            defer { state.nextID += 1 }
            guard state.isBusy || !state.waiting.isEmpty else {
                state.isBusy = true
                return (true, state.nextID)
            }
            return (false, state.nextID)
        }
        if entered { return try Task.checkCancellation(leaving: self) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let enters = state.withLock { state in
                    if Task.isCancelled { return false as Bool? }
                    guard state.isBusy else {
                        state.isBusy = true
                        return true
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                switch enters {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: RestingError.cancelled)
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            waiter?.resume(throwing: RestingError.cancelled)
        }
    }

    /// Gives the turn to the next sender waiting, if any.
    func leave() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.isBusy = false
                return CheckedContinuation<Void, any Error>?.none
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}

extension Task where Success == Never, Failure == Never {
    /// Throws ``/RestingCore/RestingError/cancelled`` — after handing `gate`'s turn on — when the current task is cancelled.
    fileprivate static func checkCancellation(leaving gate: WebSocketSendGate) throws {
        guard isCancelled else { return }
        gate.leave()
        throw RestingError.cancelled
    }
}
