/// One streamed call across all its streams: the first response's and every reconnection's.
///
/// It is what ``RestingClient/cancelAll()`` and the promise's `cancel()` reach for a streamed call, from the
/// moment the first head arrives until the last stream ends — or, while a reconnecting reader holds it, until
/// that reader is done, the waits between streams included. Each stream keeps its call alive until the stream is
/// over, so the call stays within reach however little of the response the caller keeps (typically only an
/// iterator). How to open the next stream is not the call's but its ``Reconnector``'s, which only a reconnecting
/// reader keeps: a body read without reconnection holds no copy of the request.
final class StreamedCall: Sendable {
    /// Where the call is, with what that phase holds.
    private enum Phase {
        /// Its current stream's end is the call's end.
        case reading
        /// A reconnecting reader holds it open between streams: `wait` is the pause before the next one, to cut
        /// short on cancellation; `lastEnding` how the last stream ended, once one has.
        case heldOpen(wait: Task<Void, any Error>?, lastEnding: (any Error)?)
        /// Cancelled: a stream attached from now on is cancelled at once, and no reconnection starts.
        case cancelled
        /// Over: its stream ended with no reader holding it open, or its reader finished.
        case ended
    }

    private struct State {
        var phase = Phase.reading
        /// The registry entry that makes the call reachable by `cancelAll()`, while it has one.
        var registration: UInt64?
        /// The stream being read; weak, so that a dropped stream still cancels itself.
        weak var stream: ResponseBodyStream?

        /// Whether `cancelAll()` should reach the call and cannot yet.
        var needsRegistration: Bool {
            switch phase {
            case .reading, .heldOpen: registration == nil
            case .cancelled, .ended: false
            }
        }
    }

    private let state = Locked(State())
    private let registry: CallRegistry
    /// Where the call's end is reported, with the status of its first head.
    private let ending: (events: CallEventReporter, status: Int)?

    /// A call registered in `registry` once its first stream is attached, its end reported to `ending`'s events.
    init(registry: CallRegistry, ending: (events: CallEventReporter, status: Int)? = nil) {
        self.registry = registry
        self.ending = ending
    }

    deinit {
        // Nobody can read or reconnect any more.
        if let registration = state.withLock({ $0.registration }) { registry.settle(registration) }
        ending?.events.report(.callCancelled)  // unless it ended already: a body dropped unread
    }

    /// Makes `stream` the call's current one: cancelling the call cancels it, and its end ends the call unless a
    /// reconnecting reader holds it open. A stream attached after cancellation is cancelled at once.
    func attach(_ stream: ResponseBodyStream) {
        let cancelled = state.withLock { state in
            state.stream = stream
            if case .cancelled = state.phase { return true }
            return false
        }
        guard !cancelled else { return stream.cancel() }
        register()
        // Strong: the call lives as long as a stream of it does.
        stream.onTermination { self.streamEnded($0) }
    }

    /// Cancels the call: its stream, a wait before a reconnection, and any reconnection to come.
    func cancel() {
        let (stream, wait) = state.withLock { state -> (ResponseBodyStream?, Task<Void, any Error>?) in
            var wait: Task<Void, any Error>?
            switch state.phase {
            case .ended: return (nil, nil)
            case .heldOpen(let pending, _): wait = pending
            case .reading, .cancelled: break
            }
            state.phase = .cancelled
            return (state.stream, wait)
        }
        stream?.cancel()
        wait?.cancel()
    }

    func holdOpen() {
        state.withLock { state in
            switch state.phase {
            case .reading, .ended: state.phase = .heldOpen(wait: nil, lastEnding: nil)
            case .heldOpen, .cancelled: break
            }
        }
        register()
    }

    func wait(_ delay: Duration) async throws {
        let wait = Task { try await Task.sleep(forAnyDuration: delay) }
        let cancelled = state.withLock { state in
            switch state.phase {
            case .heldOpen(_, let lastEnding): state.phase = .heldOpen(wait: wait, lastEnding: lastEnding)
            case .cancelled: return true
            case .reading, .ended: break
            }
            return false
        }
        defer {
            state.withLock { state in
                if case .heldOpen(_, let lastEnding) = state.phase {
                    state.phase = .heldOpen(wait: nil, lastEnding: lastEnding)
                }
            }
        }
        if cancelled { wait.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await wait.value
            } onCancel: {
                wait.cancel()
            }
        } catch {
            throw RestingError.cancelled
        }
    }

    /// Opens the call's next stream with `open`, unless the call is cancelled, and attaches it.
    func reopen(
        _ headers: [(name: String, value: String)], with open: Reconnector.Open
    ) async throws -> ResponseBodyStream? {
        if case .cancelled = state.withLock({ $0.phase }) { throw RestingError.cancelled }
        guard let stream = try await open(headers) else { return nil }
        attach(stream)
        return stream
    }

    /// The reconnecting reader is done: the call ends as the reader failed (`failure`: an event too large), else
    /// as its last stream did (cancelled, if it was).
    func finish(failing failure: (any Error)?) {
        let ending = state.withLock { state -> (any Error)?? in
            defer { state.phase = .ended }
            switch state.phase {
            case .heldOpen(_, let lastEnding): return .some(failure ?? lastEnding)
            case .cancelled: return .some(RestingError.cancelled)
            case .reading: return .some(failure)
            case .ended: return nil
            }
        }
        if let ending { settle(ending: ending) }
    }

    private func streamEnded(_ error: (any Error)?) {
        let settles = state.withLock { state in
            switch state.phase {
            case .heldOpen(let wait, _):
                state.phase = .heldOpen(wait: wait, lastEnding: error)
                return false
            case .reading:
                state.phase = .ended
                return true
            case .cancelled: return true
            case .ended: return false
            }
        }
        if settles { settle(ending: error) }
    }

    /// Registers the call for `cancelAll()`, unless it is registered, cancelled or over.
    private func register() {
        guard state.withLock({ $0.needsRegistration }) else { return }
        let registration = registry.add { [weak self] in self?.cancel() }
        let surplus = state.withLock { state -> UInt64? in
            guard state.needsRegistration else { return registration }
            state.registration = registration
            return nil
        }
        if let surplus { registry.settle(surplus) }
    }

    /// Takes the call out of the registry, and reports its end: how its last stream ended.
    private func settle(ending error: (any Error)?) {
        let registration = state.withLock { state in
            defer { state.registration = nil }
            return state.registration
        }
        if let registration { registry.settle(registration) }
        if let ending { ending.events.end(status: ending.status, body: error) }
    }
}

extension StreamedCall {
    /// What a reconnecting reader uses (``StreamedBody``'s reconnector): the call, and how to open its next stream
    /// — a closure holding the request, the client and the base URL, kept only as long as the body or its reader. A
    /// reconnection goes through the client's concurrency limit and is converted against the base URL the call
    /// started with.
    struct Reconnector: StreamReconnector {
        /// Sends the call again with extra headers: the new stream, or `nil` for a 204.
        typealias Open = @Sendable (_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?

        let call: StreamedCall
        let open: Open

        func holdOpen() { call.holdOpen() }
        func wait(_ delay: Duration) async throws { try await call.wait(delay) }
        func reopen(_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream? {
            try await call.reopen(headers, with: open)
        }
        func finish(failing failure: (any Error)?) { call.finish(failing: failure) }
        func cancel() { call.cancel() }
    }
}
