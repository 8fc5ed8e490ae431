import Foundation
import RestingCore
import Testing

@testable import RestingCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that waits for upgraded connections' sockets, with each of its loops: `epoll` (Linux) and `poll(2)`
/// (every other platform — run here too, so that Linux tests the loop Apple platforms use).
// Five minutes, as a hang detector: with the whole suite beside them under ASan these tests, 10 ms alone, waited more
// than one minute for a thread of the cooperative pool (CI).
@Suite("Socket poller", .timeLimit(.minutes(5)))
struct SocketPollerTests {
    static var backends: [SocketWaiting] {
        #if os(Linux)
        [.epoll, .poll]
        #else
        [.poll]
        #endif
    }

    /// Two connected sockets, closed when the test ends.
    final class SocketPair: Sendable {
        let near: Int32
        let far: Int32

        init() throws {
            var ends: [Int32] = [-1, -1]
            #if canImport(Glibc)
            let kind = Int32(SOCK_STREAM.rawValue)
            #else
            let kind = SOCK_STREAM
            #endif
            try #require(socketpair(AF_UNIX, kind, 0, &ends) == 0)
            (near, far) = (ends[0], ends[1])
        }

        func writeFar() {
            var byte: UInt8 = 7
            _ = write(far, &byte, 1)
        }

        deinit {
            close(near)
            close(far)
        }
    }

    @Test(
        "waits end when their sockets become readable, in the order the bytes come, whichever registered first",
        arguments: backends)
    func readable(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        defer { poller.stop() }
        let (first, second) = (try SocketPair(), try SocketPair())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await poller.wait(until: .readable, socket: first.near) }
            group.addTask { try await poller.wait(until: .readable, socket: second.near) }
            // Readiness is a level: whether the waits are registered before the bytes arrive or after, they end.
            second.writeFar()
            try await group.next()
            first.writeFar()
            try await group.waitForAll()
        }
    }

    @Test("a connected socket is writable at once", arguments: backends)
    func writable(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        defer { poller.stop() }
        let pair = try SocketPair()
        try await poller.wait(until: .writable, socket: pair.near)
        try await poller.wait(until: .writable, socket: pair.far)
    }

    @Test("a socket whose peer closed is reported, so that the read after the wait sees the end", arguments: backends)
    func peerClosed(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        defer { poller.stop() }
        let pair = try SocketPair()
        _ = shutdown(pair.far, Int32(SHUT_RDWR))
        try await poller.wait(until: .readable, socket: pair.near)
        var byte: UInt8 = 0
        #expect(read(pair.near, &byte, 1) == 0)
    }

    @Test("a cancelled wait ends as cancelled; the poller then serves others", arguments: backends)
    func cancelled(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        defer { poller.stop() }
        let (silent, other) = (try SocketPair(), try SocketPair())
        let waiting = Task { try await poller.wait(until: .readable, socket: silent.near) }
        waiting.cancel()
        await #expect(throws: RestingError.cancelled) { try await waiting.value }
        other.writeFar()
        try await poller.wait(until: .readable, socket: other.near)
    }

    @Test(
        "abandoning a socket fails its waits with the error given; stopping fails the rest and every later one",
        arguments: backends)
    func abandonAndStop(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        let (abandoned, pending) = (try SocketPair(), try SocketPair())
        let closing = RestingError.transportFailed(
            TransportError(kind: .connectionReset, code: 0, domain: "test", message: "closed"))
        let onAbandoned = Task { try await poller.wait(until: .readable, socket: abandoned.near) }
        let onPending = Task { try await poller.wait(until: .readable, socket: pending.near) }
        // Repeated until the wait is registered: abandoning before it only forgets a socket no one waits on yet.
        let abandoning = Task {
            while !Task.isCancelled {
                poller.abandon(abandoned.near, with: closing)
                await Task.yield()
            }
        }
        await #expect(throws: closing) { try await onAbandoned.value }
        abandoning.cancel()
        // A wait registered before the stop is failed by it; one registered after fails as it registers.
        poller.stop()
        await #expect(throws: RestingError.shutDown) { try await onPending.value }
        await #expect(throws: RestingError.shutDown) {
            try await poller.wait(until: .writable, socket: pending.near)
        }
    }

    // MARK: The executor of the tasks that read its sockets

    /// The name of the thread the caller runs on.
    static var threadName: String? { Thread.current.name }

    @Test(
        "a task that prefers the poller runs on its thread, starting it; a wait resumes it there", arguments: backends)
    func runsTasksOnItsThread(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        defer { poller.stop() }
        let pair = try SocketPair()
        let threads = try await Task(executorPreference: poller) {
            let started = Self.threadName
            pair.writeFar()
            try await poller.wait(until: .readable, socket: pair.near)
            return [started, Self.threadName]
        }.value
        #expect(threads == ["resting-poll", "resting-poll"])
    }

    @Test(
        "tasks that prefer a stopped poller run on the global pool: enqueued after the stop, or stopping it themselves")
    func stoppedPollerHandsTasksOn() async throws {
        let poller = try SocketPoller()
        #expect(await Task(executorPreference: poller) { Self.threadName }.value == "resting-poll")
        let afterTheStop = await Task(executorPreference: poller) {
            poller.stop()
            // The stop's own job ends on the thread; what follows its next suspension runs elsewhere.
            await Task.yield()
            return Self.threadName
        }.value
        #expect(afterTheStop != "resting-poll")
        #expect(await Task(executorPreference: poller) { Self.threadName }.value != "resting-poll")
    }

    @Test("a poller stopped before its thread ever ran still runs the tasks that prefer it")
    func neverStartedPoller() async throws {
        let poller = try SocketPoller()
        poller.stop()
        let ran = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask(executorPreference: poller) { true } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(ran == 100)
    }

    @Test("jobs enqueued from many threads while the poller stops all run, each once", arguments: backends)
    func jobsAcrossAStop(_ backend: SocketWaiting) async throws {
        let poller = try SocketPoller(backend: backend)
        let runs = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2_000 {
                if index == 1_000 { group.addTask { poller.stop() } }
                group.addTask(executorPreference: poller) {
                    runs.withLock { $0 += 1 }
                    await Task.yield()
                    runs.withLock { $0 += 1 }
                }
            }
        }
        #expect(runs.withLock { $0 } == 4_000)
    }
}
