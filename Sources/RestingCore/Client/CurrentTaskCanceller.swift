/// Lets ``RestingClient/cancelAll()`` cancel a call that runs in its caller's task (``RestingClient/send(_:)->RestingResponse<ResponseType>``).
///
/// It may cancel the task only while the call runs in it: afterwards the task does other work, or has ended.
/// ``detach()``, which the call makes before it returns, waits for a ``cancel()`` under way and turns every later
/// one into nothing.
struct CurrentTaskCanceller: Sendable {
    private let task = Locked(withUnsafeCurrentTask { $0 })

    func cancel() {
        // Under the lock, so that the call cannot detach — and return — while its task is being cancelled. This
        // runs the task's cancellation handlers, the one call out from under a `Locked`; none of them can reach
        // this canceller again: `cancelAll()` has taken it out of the registry, and only the call detaches.
        task.withLock { $0?.cancel() }
    }

    func detach() { task.withLock { $0 = nil } }
}
