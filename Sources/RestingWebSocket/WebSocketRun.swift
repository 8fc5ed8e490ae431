import RestingCore

/// What both engines of a socket (``WebSocketSession``, ``WebSocketRelay``) keep the same way: the lifecycle under
/// one lock, the tasks that end with the socket, who waits for its end, and the end itself — reported once, the
/// inbox ended as the lifecycle says, what carries the socket released.
final class WebSocketRun: Sendable {
    private struct State {
        var lifecycle = WebSocketLifecycle()
        /// The reading loop and the keep-alive: cancelled at the end.
        var tasks: [Task<Void, Never>] = []
        /// Waiting for the end of a close handshake.
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// Called once, when the socket is over (the registry's entry settles); `nil` after.
        var onEnd: (@Sendable () -> Void)?
    }

    private let state: Locked<State>
    let inbox: WebSocketInbox
    let events: CallEventReporter?
    /// Closes what carries the socket: the upgraded connection, or the transport's own socket.
    private let release: @Sendable () -> Void

    init(
        inbox: WebSocketInbox, events: CallEventReporter?, release: @escaping @Sendable () -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.inbox = inbox
        self.events = events
        self.release = release
        state = Locked(State(onEnd: onEnd))
    }

    /// Runs `body` on the lifecycle, under the lock.
    func lifecycle<Result>(_ body: (inout WebSocketLifecycle) -> Result) -> Result {
        state.withLock { body(&$0.lifecycle) }
    }

    var acceptsMessages: Bool { lifecycle { $0.acceptsMessages } }
    var isOver: Bool { lifecycle { $0.isOver } }

    /// Cancels `tasks` at the end (at once when the socket is already over).
    func ends(with tasks: [Task<Void, Never>?]) {
        let tasks = tasks.compactMap { $0 }
        let isOver = state.withLock { state in
            if state.onEnd == nil { return true }
            state.tasks += tasks
            return false
        }
        if isOver { for task in tasks { task.cancel() } }
    }

    /// Waits until the socket is over and what carries it released (the lifecycle may be over before: the answer to
    /// a peer's close still going out).
    func waitUntilOver() async {
        await withCheckedContinuation { continuation in
            let isOver = state.withLock { state in
                if state.onEnd == nil { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if isOver { continuation.resume() }
        }
    }

    /// Runs the close handshake this side began — `sendClose` sends its close frame, then the peer's is awaited —
    /// within `timeout` in all: past it, or when the closing task is cancelled, the socket is over as a close no
    /// frame answered, and what carries it is released (which ends a close frame's write still waiting).
    func closeHandshake(within timeout: Duration, sendClose: @Sendable () async -> Void) async {
        // The reading loop must read on to find the peer's close frame, even with the inbox full: what arrives meanwhile
        // is dropped.
        inbox.stopHoldingProducer()
        let timer = Task {
            try? await Task.sleep(forAnyDuration: timeout)
            guard !Task.isCancelled else { return }
            self.over(connectionEnded: true)
        }
        await withTaskCancellationHandler {
            await sendClose()
            await waitUntilOver()
        } onCancel: {
            self.over(connectionEnded: true)
        }
        timer.cancel()
    }

    /// The socket is over: what carries it is released, its tasks cancelled, the inbox ended and the call's end
    /// reported as the lifecycle says, waiters resumed — once. `connectionEnded`: it ended with no close frame from
    /// the peer.
    func over(connectionEnded: Bool) {
        let (closeWaiters, onEnd, tasks, final) = state.withLock { state in
            if connectionEnded { state.lifecycle.connectionEnded() }
            defer {
                state.closeWaiters.removeAll()
                state.tasks.removeAll()
                state.onEnd = nil
            }
            return (state.closeWaiters, state.onEnd, state.tasks, state.lifecycle.state)
        }
        guard let onEnd else { return }
        release()
        for task in tasks { task.cancel() }
        final.end(inbox, events: events)
        for waiter in closeWaiters { waiter.resume() }
        onEnd()
    }
}

extension WebSocketLifecycle.State {
    /// Ends `inbox` and reports the call's end as this final state says.
    fileprivate func end(_ inbox: WebSocketInbox, events: CallEventReporter?) {
        switch self {
        case .closed:
            inbox.finish(.success(()))
            events?.report(.callEnded(status: 101))
        case .failed(let error):
            inbox.finish(.failure(error))
            events?.fail(error.thrown)
        case .open, .closing:
            // Over without a lifecycle's end: the connection was closed from here (a cancelled close).
            inbox.finish(.failure(.cancelled))
            events?.report(.callCancelled)
        }
    }
}
