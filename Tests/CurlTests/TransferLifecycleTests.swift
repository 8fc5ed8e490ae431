import Testing

@testable import RestingCurl

@Suite("Curl transfer lifecycle (no sockets)")
struct TransferLifecycleTests {
    @Test("a transfer starts, completes, and later events are ignored")
    func startThenComplete() {
        var lifecycle = TransferLifecycle()
        #expect(lifecycle.start() == .start)
        #expect(lifecycle.state == .running)
        #expect(lifecycle.complete() == .finish)
        #expect(lifecycle.state == .completed)
        #expect(lifecycle.complete() == .ignore)
        #expect(lifecycle.cancel() == .ignore, "a cancel after completion changes nothing")
        #expect(lifecycle.start() == .ignore)
    }

    @Test("a cancel before the transfer starts fails it at start, without touching libcurl")
    func cancelBeforeStart() {
        var lifecycle = TransferLifecycle()
        #expect(lifecycle.cancel() == .ignore)
        #expect(lifecycle.isCancellationRequested)
        #expect(lifecycle.start() == .failCancelled)
        #expect(lifecycle.state == .completed)
        #expect(lifecycle.complete() == .ignore)
    }

    @Test("a cancel while running removes the handle once; the completion that follows is ignored")
    func cancelWhileRunning() {
        var lifecycle = TransferLifecycle()
        #expect(lifecycle.start() == .start)
        #expect(lifecycle.cancel() == .removeHandleAndFailCancelled)
        #expect(lifecycle.cancel() == .ignore, "a second cancel does nothing")
        #expect(lifecycle.complete() == .ignore, "libcurl's late report does not resume twice")
    }

    @Test("a transfer that cannot be configured fails once")
    func failBeforeStart() {
        var lifecycle = TransferLifecycle()
        #expect(lifecycle.start() == .start)
        #expect(lifecycle.failBeforeStart() == .finish)
        #expect(lifecycle.failBeforeStart() == .ignore)
        #expect(lifecycle.cancel() == .ignore)
    }

    @Test(
        "every order of start, cancel and complete resumes exactly once",
        arguments: [
            ["start", "cancel", "complete"], ["start", "complete", "cancel"], ["cancel", "start", "complete"],
            ["cancel", "complete", "start"], ["complete", "start", "cancel"], ["complete", "cancel", "start"],
        ])
    func everyOrderResumesOnce(order: [String]) {
        var lifecycle = TransferLifecycle()
        var resumes = 0
        for event in order {
            let action: TransferLifecycle.Action =
                switch event {
                case "start": lifecycle.start()
                case "cancel": lifecycle.cancel()
                default: lifecycle.complete()
                }
            if [.failCancelled, .removeHandleAndFailCancelled, .finish].contains(action) { resumes += 1 }
            // `start` only adds the handle; a later `complete` or `cancel` resumes.
        }
        let started =
            order.firstIndex(of: "start").map { index in
                !order[..<index].contains("cancel")
            } ?? false
        let expected = started ? (order.last == "start" ? 0 : 1) : (order.contains("start") ? 1 : 0)
        #expect(resumes == expected, "\(order)")
        #expect(resumes <= 1)
    }
}
