/// The life of one curl transfer, as the driver thread sees it: queued → running → completed, with a
/// cancellation that may arrive at any point (before the transfer was even queued, while it runs, or after
/// it finished). A streamed response passes through `streaming` between its head and its body's end: the
/// caller has been resumed with the head, and the body's stream is what remains to end.
///
/// Every transition returns what the driver must do; the driver owns the value and is the only one to call
/// it, so the continuation is resumed exactly once whatever the order of events. No sockets are involved:
/// the machine is unit-tested on its own.
struct TransferLifecycle: Equatable {
    enum State: Equatable {
        case queued
        case running
        /// The caller has the head; the body still flows into its stream.
        case streaming
        case completed
    }

    enum Action: Equatable {
        /// Add the handle to the multi stack.
        case start
        /// Resume the caller with `.cancelled`; no handle was ever added.
        case failCancelled
        /// Remove the handle from the multi stack, then resume the caller with `.cancelled`.
        case removeHandleAndFailCancelled
        /// Read the outcome off the handle and resume the caller with it.
        case finish
        /// Resume the caller with the head and a stream for the body.
        case deliverHead
        /// Remove the handle, then end the body's stream with `.cancelled`.
        case removeHandleAndCancelStream
        /// Read the outcome off the handle and end the body's stream with it.
        case finishStream
        /// Nothing to do: the caller was, or will be, resumed by another transition.
        case ignore
    }

    private(set) var state = State.queued
    private(set) var isCancellationRequested = false

    /// The driver takes the transfer from the submission queue.
    mutating func start() -> Action {
        guard state == .queued else { return .ignore }
        state = isCancellationRequested ? .completed : .running
        return isCancellationRequested ? .failCancelled : .start
    }

    /// The driver takes a cancellation message; it may concern a transfer in any state.
    mutating func cancel() -> Action {
        isCancellationRequested = true
        switch state {
        case .queued:
            // Not started yet (or not even submitted): `start()` fails it.
            return .ignore
        case .running:
            state = .completed
            return .removeHandleAndFailCancelled
        case .streaming:
            state = .completed
            return .removeHandleAndCancelStream
        case .completed:
            return .ignore
        }
    }

    /// libcurl reports the transfer done (successfully or not).
    mutating func complete() -> Action {
        switch state {
        case .running:
            state = .completed
            return .finish
        case .streaming:
            state = .completed
            return .finishStream
        case .queued, .completed:
            return .ignore
        }
    }

    /// The head of a streamed response has arrived (from libcurl's header callback).
    mutating func headArrived() -> Action {
        guard state == .running else { return .ignore }
        state = .streaming
        return .deliverHead
    }

    /// A transfer that could not be configured fails at start without reaching libcurl.
    mutating func failBeforeStart() -> Action {
        guard state != .completed else { return .ignore }
        state = .completed
        return .finish
    }
}
