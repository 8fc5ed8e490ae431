import Testing

@testable import RestingURLSession

/// The task is a name, the waiter a number and the feed a name: the machine is checked without a session.
private typealias Lifecycle = TaskLifecycle<String, Int, String>

@Suite("URLSession task lifecycle (no session)")
struct TaskLifecycleTests {
    @Test("a task starts, completes once, and later events are ignored")
    func startThenFinish() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.mayStart)
        #expect(lifecycle.started("task", waiter: 1) == true)
        #expect(lifecycle.isRunning)
        #expect(lifecycle.finish() == 1)
        #expect(lifecycle.finish() == nil, "the waiter is resumed once")
        #expect(lifecycle.cancel() == nil, "a cancel after completion changes nothing")
        #expect(lifecycle.abandon() == nil)
        #expect(!lifecycle.isRunning)
    }

    @Test("a cancel before the task exists keeps it from being made")
    func cancelBeforeStart() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.cancel() == nil, "there is no task to cancel and no waiter yet")
        #expect(!lifecycle.mayStart)
        #expect(
            lifecycle.started("task", waiter: 1) == false, "a task made meanwhile is cancelled and its waiter failed")
        #expect(lifecycle.finish() == nil)
    }

    @Test("a cancel while running hands out the task and the waiter once; the completion that follows is ignored")
    func cancelWhileRunning() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.started("task", waiter: 7) == true)
        let cancelled = lifecycle.cancel()
        #expect(cancelled?.0 == "task")
        #expect(cancelled?.1 == 7)
        #expect(lifecycle.cancel() == nil, "a second cancel does nothing")
        #expect(lifecycle.finish() == nil, "URLSession's late report does not resume twice")
    }

    @Test("a refused response cancels the task but leaves the report of it to the completion")
    func abandonWhileRunning() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.started("task", waiter: 3) == true)
        #expect(lifecycle.abandon() == "task")
        #expect(lifecycle.isRunning, "the waiter still waits for the completion's failure")
        #expect(lifecycle.finish() == 3)
    }

    @Test("a streamed response hands the waiter its head once, then the body's feed ends once")
    func streamingThenComplete() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.started("task", waiter: 5) == true)
        #expect(lifecycle.beginStreaming(into: "feed") == 5)
        #expect(lifecycle.beginStreaming(into: "another feed") == nil, "a second head goes nowhere")
        #expect(lifecycle.feed == "feed")
        #expect(!lifecycle.isRunning)
        #expect(lifecycle.cancel() == nil, "the call already has its head: only the reader stops the body")
        #expect(lifecycle.finish() == nil)
        #expect(lifecycle.endStream() == "feed")
        #expect(lifecycle.endStream() == nil)
        #expect(lifecycle.feed == nil)
    }

    @Test("a reader that leaves a stream cancels the task once; the completion finds nothing to end")
    func readerLeavesStream() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.started("task", waiter: 5) == true)
        #expect(lifecycle.beginStreaming(into: "feed") == 5)
        #expect(lifecycle.readerLeft() == "task")
        #expect(lifecycle.readerLeft() == nil)
        #expect(lifecycle.endStream() == nil)
    }

    @Test("a stream whose body is refused ends there: nobody is left to report to")
    func abandonWhileStreaming() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.started("task", waiter: 5) == true)
        #expect(lifecycle.beginStreaming(into: "feed") == 5)
        #expect(lifecycle.abandon() == "task")
        #expect(lifecycle.abandon() == nil)
        #expect(lifecycle.endStream() == nil)
    }

    @Test("nothing streams before a task runs, and a head after a cancel goes nowhere")
    func headOutsideRunning() {
        var idle = Lifecycle()
        #expect(idle.beginStreaming(into: "feed") == nil)
        #expect(idle.readerLeft() == nil)
        var cancelled = Lifecycle()
        #expect(cancelled.started("task", waiter: 1) == true)
        _ = cancelled.cancel()
        #expect(cancelled.beginStreaming(into: "feed") == nil)
    }
}
