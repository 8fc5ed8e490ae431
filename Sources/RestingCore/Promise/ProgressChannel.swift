/// Carries progress reports from a transfer to every promise derived from it.
///
/// A channel remembers the latest report, so an observer that arrives late starts from it, and closes when
/// its promise settles. Observers are internal forwarders (to another channel, or into a stream that feeds
/// a user's handler); they run under the lock, which keeps reports in order and is safe because forwarding
/// only ever goes from a promise to the promises derived from it.
///
/// A struct around its locked state, so that a channel costs one allocation; copies share that state.
package struct ProgressChannel: Sendable {
    private struct Observer {
        let onProgress: @Sendable (TransferProgress) -> Void
        let onClose: @Sendable () -> Void
    }

    private struct State {
        var latest: TransferProgress?
        var observers: [Observer] = []
        var isClosed = false
    }

    private let state = Locked(State())

    package init() {}

    package func send(_ progress: TransferProgress) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.latest = progress
            for observer in state.observers { observer.onProgress(progress) }
        }
    }

    package func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            for observer in state.observers { observer.onClose() }
            state.observers = []
        }
    }

    package func observe(
        onProgress: @escaping @Sendable (TransferProgress) -> Void, onClose: @escaping @Sendable () -> Void
    ) {
        state.withLock { state in
            if let latest = state.latest { onProgress(latest) }
            if state.isClosed {
                onClose()
            } else {
                state.observers.append(Observer(onProgress: onProgress, onClose: onClose))
            }
        }
    }

    /// Sends every report of this channel to `other` as well.
    package func forward(to other: ProgressChannel) {
        observe(onProgress: { other.send($0) }, onClose: {})
    }
}
