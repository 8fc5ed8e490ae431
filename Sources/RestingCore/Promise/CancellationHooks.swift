/// What else a promise's ``ProgressablePromise/cancel()`` must stop besides its task: a streamed body that
/// outlives the task that opened it. A hook added after cancellation runs at once.
package final class CancellationHooks: Sendable {
    private struct State {
        var isCancelled = false
        var hooks: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    package init() {}

    package func add(_ hook: @escaping @Sendable () -> Void) {
        let runsNow = state.withLock { state in
            if !state.isCancelled { state.hooks.append(hook) }
            return state.isCancelled
        }
        if runsNow { hook() }
    }

    package func cancel() {
        let hooks = state.withLock { state in
            defer { state.hooks = [] }
            state.isCancelled = true
            return state.hooks
        }
        for hook in hooks { hook() }
    }
}
