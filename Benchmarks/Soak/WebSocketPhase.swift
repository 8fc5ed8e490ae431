import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingWebSocket
import Synchronization

/// The soak's WebSocket phase: for `seconds`, sockets to a peer that stops reading, each with a send stuck on it
/// (more than every buffer between the two sides: 10 MiB at most on Linux), ended in turn by each way an app ends one — `close()`,
/// `cancelAll()`, `RestingClient.shutdown`, cancelling the send, the keep-alive — each of which must return within
/// `limit`. Then the transport's shutdown, after which no descriptor or thread of the phase may be left.
func soakStalledWebSockets(seconds: Int, limit: Duration = .seconds(30)) async throws -> Bool {
    let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py")
    let peer = try await LocalServer.start(script: script)
    defer { peer.stop() }
    let before = (descriptors: openDescriptors(), threads: threadCount())
    var transport: (any HTTPClient)? = try CurlClient()
    let endings = ["close", "cancelAll", "shutdown", "cancelSend", "keepAlive"]
    let stuck = Data(count: 12 << 20)
    var (rounds, hangs) = (0, [String: Int]())
    let end = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < end, let current = transport {
        let ending = endings[rounds % endings.count]
        let client = RestingClient(baseUrl: peer.baseURL, httpClient: current)
        var options = WebSocketOptions(compression: nil, closeTimeout: .milliseconds(200))
        if ending == "keepAlive" { options.keepAlive = .init(interval: .milliseconds(20), timeout: .milliseconds(100)) }
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/echo?stall=1&tag=soak-\(rounds)")
        let socket = try await client.webSocket(RestingRequest(endpoint: endpoint), options: options)
        let send = Task { try await socket.send(stuck) }
        let ended = await returns(within: limit) {
            switch ending {
            case "close": await socket.close()
            case "cancelAll": client.cancelAll()
            case "shutdown": await client.shutdown(gracePeriod: .zero)
            case "cancelSend": send.cancel()
            default: break  // the keep-alive fails the socket by itself
            }
            _ = await send.result
            // A send cancelled before its first byte leaves the socket open: closing it must end it too.
            await socket.close()
            for await _ in socket.ignoringFailure {}
        }
        if !ended { hangs[ending, default: 0] += 1 }
        rounds += 1
    }
    let descriptors = try await shutDownAndSettle(&transport, towards: before.descriptors.count)
    let left = descriptors.filter { before.descriptors[$0.key] != $0.value }.count
    let after = (descriptors: descriptors, threads: threadCount())
    print("RESULT soak_websocket_stalled_rounds \(rounds)")
    print("RESULT soak_websocket_hangs \(hangs.values.reduce(0, +))\(hangs.isEmpty ? "" : " \(hangs)")")
    print("RESULT soak_websocket_fds_left_after_shutdown \(left)")
    print("RESULT soak_websocket_threads_growth \(after.threads - before.threads)")
    return hangs.isEmpty && left == 0 && rounds > 0
}

/// Whether `operation` returned within `limit` (it is left running when it did not: a hang cannot be ended).
private func returns(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let finished = Mutex(false)
    let task = Task {
        await operation()
        finished.withLock { $0 = true }
    }
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline, !finished.withLock({ $0 }) {
        try? await Task.sleep(for: .milliseconds(10))
    }
    _ = task
    return finished.withLock { $0 }
}

/// This process's threads (Linux's `/proc`).
private func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.count ?? 0
}

extension WebSocket {
    /// The messages until the socket ends, however it ends.
    fileprivate var ignoringFailure: AsyncStream<WebSocketMessage> {
        AsyncStream { continuation in
            let reader = Task {
                var iterator = self.makeAsyncIterator()
                while let message = try? await iterator.next() { continuation.yield(message) }
                continuation.finish()
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }
}
