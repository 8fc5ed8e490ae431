import Testing

@testable import RestingCurl

/// The lifecycle with stand-ins: waiters and feeds are numbers, so a test sees exactly which one each transition
/// hands out, and that none is handed out twice.
@Suite("Curl transfer lifecycle (no sockets)")
struct TransferLifecycleTests {
    typealias Lifecycle = TransferLifecycle<Int, String>

    /// What an action hands out: the waiter to resume or the feed to end, if any.
    static func handedOut(_ action: Lifecycle.Action) -> String? {
        switch action {
        case .failCancelled(let waiter), .removeHandleAndFailCancelled(let waiter), .finish(let waiter):
            "waiter \(waiter)"
        case .removeHandleAndCancelStream(let feed), .finishStream(let feed): "feed \(feed)"
        case .start, .ignore: nil
        }
    }

    @Test("a transfer starts, completes with its waiter, and later events are ignored")
    func startThenComplete() {
        var lifecycle = Lifecycle()
        lifecycle.attach(1)
        guard case .start = lifecycle.start() else {
            Issue.record("expected start")
            return
        }
        guard case .finish(1) = lifecycle.complete() else {
            Issue.record("expected finish(1)")
            return
        }
        #expect(Self.handedOut(lifecycle.complete()) == nil)
        #expect(Self.handedOut(lifecycle.cancel()) == nil, "a cancel after completion changes nothing")
        guard case .ignore = lifecycle.start() else {
            Issue.record("expected ignore")
            return
        }
    }

    @Test("a cancel before the transfer starts fails its waiter at start, without touching libcurl")
    func cancelBeforeStart() {
        var lifecycle = Lifecycle()
        lifecycle.attach(1)
        #expect(Self.handedOut(lifecycle.cancel()) == nil)
        #expect(lifecycle.isCancellationRequested)
        guard case .failCancelled(1) = lifecycle.start() else {
            Issue.record("expected failCancelled(1)")
            return
        }
        #expect(Self.handedOut(lifecycle.complete()) == nil)
    }

    @Test("a cancel while running removes the handle once; the completion that follows is ignored")
    func cancelWhileRunning() {
        var lifecycle = Lifecycle()
        lifecycle.attach(1)
        _ = lifecycle.start()
        guard case .removeHandleAndFailCancelled(1) = lifecycle.cancel() else {
            Issue.record("expected 1")
            return
        }
        #expect(Self.handedOut(lifecycle.cancel()) == nil, "a second cancel does nothing")
        #expect(Self.handedOut(lifecycle.complete()) == nil, "libcurl's late report does not resume twice")
    }

    @Test("a streamed head hands the waiter out once; the body's end hands out the feed, by completion or cancel")
    func streaming() {
        for ending in ["complete", "cancel"] {
            var lifecycle = Lifecycle()
            lifecycle.attach(1)
            _ = lifecycle.start()
            #expect(lifecycle.streamHead(into: "body") == 1)
            #expect(lifecycle.feed == "body")
            #expect(lifecycle.streamHead(into: "again") == nil, "a second head resumes no one")
            let end = ending == "complete" ? lifecycle.complete() : lifecycle.cancel()
            #expect(Self.handedOut(end) == "feed body", "\(ending)")
            #expect(lifecycle.feed == nil)
            #expect(Self.handedOut(lifecycle.complete()) == nil && Self.handedOut(lifecycle.cancel()) == nil)
        }
    }

    @Test("a transfer that cannot be configured, or reach its driver, fails its waiter once")
    func failBeforeStart() {
        var queued = Lifecycle()
        queued.attach(1)
        #expect(queued.failBeforeStart() == 1)
        #expect(queued.failBeforeStart() == nil)
        var running = Lifecycle()
        running.attach(2)
        _ = running.start()
        #expect(running.failBeforeStart() == 2)
        #expect(Self.handedOut(running.cancel()) == nil)
    }

    @Test(
        "every order of start, cancel and complete resumes the waiter exactly once",
        arguments: [
            ["start", "cancel", "complete"], ["start", "complete", "cancel"], ["cancel", "start", "complete"],
            ["cancel", "complete", "start"], ["complete", "start", "cancel"], ["complete", "cancel", "start"],
        ])
    func everyOrderResumesOnce(order: [String]) {
        var lifecycle = Lifecycle()
        lifecycle.attach(7)
        var handedOut: [String] = []
        for event in order {
            let action: Lifecycle.Action =
                switch event {
                case "start": lifecycle.start()
                case "cancel": lifecycle.cancel()
                default: lifecycle.complete()
                }
            // `start` only adds the handle; a later `complete` or `cancel` resumes.
            if let given = Self.handedOut(action) { handedOut.append(given) }
        }
        let started = order.firstIndex(of: "start").map { !order[..<$0].contains("cancel") } ?? false
        let expected = started ? (order.last == "start" ? 0 : 1) : (order.contains("start") ? 1 : 0)
        #expect(handedOut.count == expected, "\(order)")
        #expect(handedOut.allSatisfy { $0 == "waiter 7" })
    }
}
