/// One streamed call across all its streams: the first response's and every reconnection's.
///
/// It is what ``RestingClient/cancelAll()`` and the promise's `cancel()` reach for a streamed call, from the
/// moment the first head arrives until the last stream ends — or, while a reconnecting reader holds it, until
/// that reader is done, the waits between streams included. A reconnection goes through the client's
/// concurrency limit and is converted against the base URL the call started with.
final class StreamedCall: StreamReconnector {
    private struct State {
        /// The registry entry that makes the call reachable by `cancelAll()`, while it has one.
        var registration: UInt64?
        /// The stream being read; weak, so that a dropped stream still cancels itself.
        weak var stream: ResponseBodyStream?
        var isCancelled = false
        /// Whether a reconnecting reader holds the call open between its streams.
        var isHeldOpen = false
        var isFinished = false
        /// The wait before a reconnection, to cut short on cancellation.
        var wait: Task<Void, any Error>?
    }

    private let state = Locked(State())
    private let registry: CallRegistry
    private let open: @Sendable (_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?

    /// A call whose streams `open` makes (with the extra headers of a reconnection), registered in `registry`.
    init(
        registry: CallRegistry,
        open: @escaping @Sendable (_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?
    ) {
        self.registry = registry
        self.open = open
    }

    deinit {
        // Nobody can read or reconnect any more.
        if let registration = state.withLock({ $0.registration }) { registry.settle(registration) }
    }

    /// Makes `stream` the call's current one: cancelling the call cancels it, and its end ends the call unless a
    /// reconnecting reader holds it open. A stream attached after cancellation is cancelled at once.
    func attach(_ stream: ResponseBodyStream) {
        let cancelled = state.withLock { state in
            state.stream = stream
            return state.isCancelled
        }
        guard !cancelled else { return stream.cancel() }
        register()
        stream.onTermination { [weak self] in self?.streamEnded() }
    }

    /// Cancels the call: its stream, a wait before a reconnection, and any reconnection to come.
    func cancel() {
        let (stream, wait) = state.withLock { state in
            state.isCancelled = true
            return (state.stream, state.wait)
        }
        stream?.cancel()
        wait?.cancel()
    }

    func holdOpen() {
        state.withLock { $0.isHeldOpen = true }
        register()
    }

    func wait(_ delay: Duration) async throws {
        let wait = Task { try await Task.sleep(for: delay) }
        let cancelled = state.withLock { state in
            state.wait = wait
            return state.isCancelled
        }
        defer { state.withLock { $0.wait = nil } }
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

    func reopen(_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream? {
        guard !state.withLock({ $0.isCancelled }) else { throw RestingError.cancelled }
        guard let stream = try await open(headers) else { return nil }
        attach(stream)
        return stream
    }

    func finish() {
        state.withLock { state in
            state.isFinished = true
            state.isHeldOpen = false
        }
        settle()
    }

    private func streamEnded() {
        if !state.withLock({ $0.isHeldOpen }) { settle() }
    }

    /// Registers the call for `cancelAll()`, unless it is registered, cancelled or finished.
    private func register() {
        let needed = state.withLock { state in
            !(state.registration != nil || state.isCancelled || state.isFinished)
        }
        guard needed else { return }
        let registration = registry.add { [weak self] in self?.cancel() }
        let surplus = state.withLock { state -> UInt64? in
            guard state.registration == nil, !state.isFinished else { return registration }
            state.registration = registration
            return nil
        }
        if let surplus { registry.settle(surplus) }
    }

    private func settle() {
        let registration = state.withLock { state in
            defer { state.registration = nil }
            return state.registration
        }
        if let registration { registry.settle(registration) }
    }
}
