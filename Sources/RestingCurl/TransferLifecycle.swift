/// The life of one curl transfer, as the driver thread sees it: queued → running → completed, with a
/// cancellation that may arrive at any point (before the transfer was even queued, while it runs, or after
/// it finished). A streamed response passes through `streaming` between its head and its body's end: the
/// caller has been resumed with the head, and the body's feed is what remains to end.
///
/// Each state carries what it owns, as URLSession's `TaskLifecycle` does: the waiting caller (`Waiter`) while one
/// waits, the body's feed (`Feed`) while a streamed body flows. Every transition returns what the driver must do
/// and hands each waiter or feed out at most once, so the caller is resumed exactly once whatever the order of
/// events — by construction, not by a check. The driver thread owns the value and is the only one to touch it (it
/// attaches the waiter as it takes the submission, so a cancellation that arrived first is seen by `start()`). No
/// sockets are involved: the machine is unit-tested with stand-ins.
///
/// ```swift
/// var lifecycle = TransferLifecycle<Continuation, StreamedBody>()
/// lifecycle.attach(continuation)
/// if case .failCancelled(let waiter) = lifecycle.start() { resume(waiter, with: .failure(.cancelled)) }
/// ```
struct TransferLifecycle<Waiter, Feed> {
    enum State {
        /// Made and not yet taken by the driver; the driver attaches the caller's waiter as it takes the submission.
        case queued(Waiter?)
        /// libcurl has the handle; the caller waits for the response.
        case running(Waiter)
        /// The caller has the head; the body still flows into the feed.
        case streaming(Feed)
        case completed
    }

    enum Action {
        /// Add the handle to the multi stack.
        case start
        /// Resume the waiter with `.cancelled`; no handle was ever added.
        case failCancelled(Waiter)
        /// Remove the handle from the multi stack, then resume the waiter with `.cancelled`.
        case removeHandleAndFailCancelled(Waiter)
        /// Read the outcome off the handle and resume the waiter with it.
        case finish(Waiter)
        /// Remove the handle, then end the feed with `.cancelled`.
        case removeHandleAndCancelStream(Feed)
        /// Read the outcome off the handle and end the feed with it.
        case finishStream(Feed)
        /// Nothing to do: the caller was, or will be, resumed by another transition.
        case ignore
    }

    private(set) var state = State.queued(nil)
    private(set) var isCancellationRequested = false

    /// The caller that waits for this transfer, attached as the driver takes the submission, before `start()`.
    mutating func attach(_ waiter: Waiter) {
        guard case .queued(nil) = state else { return }
        state = .queued(waiter)
    }

    /// The driver takes the transfer from the submission queue.
    mutating func start() -> Action {
        guard case .queued(let waiter?) = state else { return .ignore }
        guard !isCancellationRequested else {
            state = .completed
            return .failCancelled(waiter)
        }
        state = .running(waiter)
        return .start
    }

    /// The driver takes a cancellation message; it may concern a transfer in any state.
    mutating func cancel() -> Action {
        isCancellationRequested = true
        switch state {
        case .queued:
            // Not started yet (or not even submitted): `start()` fails it.
            return .ignore
        case .running(let waiter):
            state = .completed
            return .removeHandleAndFailCancelled(waiter)
        case .streaming(let feed):
            state = .completed
            return .removeHandleAndCancelStream(feed)
        case .completed:
            return .ignore
        }
    }

    /// libcurl reports the transfer done (successfully or not).
    mutating func complete() -> Action {
        switch state {
        case .running(let waiter):
            state = .completed
            return .finish(waiter)
        case .streaming(let feed):
            state = .completed
            return .finishStream(feed)
        case .queued, .completed:
            return .ignore
        }
    }

    /// The head of a streamed response has arrived (from libcurl's header callback): the waiter to resume with it,
    /// while the body flows into `feed`.
    mutating func streamHead(into feed: Feed) -> Waiter? {
        guard case .running(let waiter) = state else { return nil }
        state = .streaming(feed)
        return waiter
    }

    /// A transfer that could not be configured, or reach a running driver, fails without reaching libcurl: the
    /// waiter to resume with the failure.
    mutating func failBeforeStart() -> Waiter? {
        switch state {
        case .queued(let waiter):
            state = .completed
            return waiter
        case .running(let waiter):
            state = .completed
            return waiter
        case .streaming, .completed:
            return nil
        }
    }

    /// The feed of a streamed body while it flows.
    var feed: Feed? {
        guard case .streaming(let feed) = state else { return nil }
        return feed
    }
}
