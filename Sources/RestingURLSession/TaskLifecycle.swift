/// The life of one URLSession task, as its ``TaskExchange`` sees it: idle → running → finished, with a
/// streamed response passing through `streaming` between its head and its body's end, and a cancellation that
/// may arrive at any point (before the task exists, while it runs, after it finished).
///
/// Every transition returns what the exchange must act on — the task to cancel, the waiter to resume, the feed
/// to end — and hands each out at most once, so the caller is resumed exactly once whatever the order of
/// events. The exchange keeps the value behind its lock; the machine itself knows nothing of URLSession, and
/// is unit-tested with stand-ins for the task, the waiter and the feed.
///
/// ```swift
/// var lifecycle = TaskLifecycle<URLSessionTask, Continuation, SpillingStreamFeed>()
/// if let (task, continuation) = lifecycle.cancel() { continuation.resume(throwing: RestingError.cancelled); task.cancel() }
/// ```
struct TaskLifecycle<SessionTask, Waiter, Feed> {
    enum Phase {
        case idle
        case running(SessionTask, Waiter)
        /// A streamed response's head went up to the waiter; its body flows into the feed.
        case streaming(SessionTask, Feed)
        case cancelledBeforeStart
        case finished
    }

    private(set) var phase = Phase.idle

    /// False once the call was cancelled before its task was made: making one only to cancel it costs
    /// FoundationNetworking a transfer.
    var mayStart: Bool {
        if case .cancelledBeforeStart = phase { return false }
        return true
    }

    /// Whether the task runs with the caller still waiting for a response.
    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// The feed of a streamed body while it flows.
    var feed: Feed? {
        if case .streaming(_, let feed) = phase { return feed }
        return nil
    }

    /// The task was made for `waiter`, about to resume. False when a cancellation came in meanwhile: cancel the
    /// task and fail the waiter with `.cancelled`.
    mutating func started(_ task: SessionTask, waiter: Waiter) -> Bool {
        guard case .idle = phase else { return false }
        phase = .running(task, waiter)
        return true
    }

    /// The caller gave up. While running: the task to cancel and the waiter to fail, now. A streamed body is
    /// stopped by its reader (``readerLeft()``), not by the call that got the head.
    mutating func cancel() -> (SessionTask, Waiter)? {
        switch phase {
        case .idle:
            phase = .cancelledBeforeStart
            return nil
        case .running(let task, let waiter):
            phase = .finished
            return (task, waiter)
        case .cancelledBeforeStart, .streaming, .finished:
            return nil
        }
    }

    /// A streamed response's head arrived while running: the waiter to resume with it; the body goes to `feed`.
    mutating func beginStreaming(into feed: Feed) -> Waiter? {
        guard case .running(let task, let waiter) = phase else { return nil }
        phase = .streaming(task, feed)
        return waiter
    }

    /// The reader of a streamed body gave up: the task to cancel.
    mutating func readerLeft() -> SessionTask? {
        guard case .streaming(let task, _) = phase else { return nil }
        phase = .finished
        return task
    }

    /// The task completed while its body streamed: the feed to end.
    mutating func endStream() -> Feed? {
        guard case .streaming(_, let feed) = phase else { return nil }
        phase = .finished
        return feed
    }

    /// The exchange refused what arrived (too large, a download refused): the task to cancel. A running call
    /// stays running, as the task's completion reports the failure to its waiter; a stream has no one left to
    /// report to, and ends here.
    mutating func abandon() -> SessionTask? {
        switch phase {
        case .running(let task, _):
            return task
        case .streaming(let task, _):
            phase = .finished
            return task
        case .idle, .cancelledBeforeStart, .finished:
            return nil
        }
    }

    /// The task completed: the waiter to resume with the outcome, unless someone else already did.
    mutating func finish() -> Waiter? {
        guard case .running(_, let waiter) = phase else { return nil }
        phase = .finished
        return waiter
    }
}
