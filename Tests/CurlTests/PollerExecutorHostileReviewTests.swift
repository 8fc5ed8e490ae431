import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCurl
@testable import RestingWebSocket

/// A hostile review of the socket poller as the reading tasks' `TaskExecutor` (`UpgradedConnection.readingExecutor`,
/// `WebSocket.executor`), its waiters by socket, and the masking keys drawn in batches. Every wait runs under a hang detector
/// (`finishing(within:)`): its limit is never a timing assertion, only what a healthy run stays far below.
@Suite("Poller executor: hostile review", .timeLimit(.minutes(5)))
struct PollerExecutorHostileReviewTests {
    static var backends: [SocketWaiting] { SocketPollerTests.backends }

    /// Far above what a healthy run takes (seconds), even under ThreadSanitizer beside the whole suite.
    static let limit = Duration.seconds(180)

    /// The conformance kit's WebSocket server: `?flood=…&batch=…` floods of messages or pongs, `?trickle=1` echoes a
    /// byte to a write, `?half=1` half a frame.
    static let server = Task {
        try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py"))
    }

    /// Floods as fast as the socket takes them, until the client's close: unsolicited pongs, one-byte messages.
    static let floods = [
        "/echo?flood=1000000000&size=0&batch=65536&kind=pong", "/echo?flood=1000000000&size=1&batch=65536",
    ]

    static func open(_ path: String, on transport: CurlClient) async throws -> WebSocket {
        let client = RestingClient(baseUrl: try await server.value.baseURL, httpClient: transport)
        return try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)),
            options: WebSocketOptions(compression: nil, closeTimeout: .seconds(2)))
    }

    static func transport(_ backend: SocketWaiting) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.socketWaiting = backend
        return try CurlClient(configuration: configuration)
    }

    // MARK: One busy socket and the others

    /// Every reading task of a client's WebSockets runs on its poller's one thread. A peer that sends faster than
    /// its frames are handled never makes its reader wait, so the reader yields after a full read or 256 frames, and
    /// the poller looks at its sockets at least every millisecond while jobs are queued.
    @Test(
        "a peer flooding one socket (unsolicited pongs; messages a consumer keeps up with) does not starve the client's other sockets",
        .serialized, arguments: backends, floods)
    func floodStarvesOtherSockets(_ backend: SocketWaiting, flood: String) async throws {
        let transport = try Self.transport(backend)
        let quiet = try await Self.open("/echo", on: transport)
        let flooded = try await Self.open(flood, on: transport)
        // Takes what the flooded socket receives (none for pongs), on the global pool.
        let consumer = Task { for try await _ in flooded {} }
        defer { consumer.cancel() }
        // Round trips on the quiet socket: each needs the poller to report its echo.
        let outcome = await Result {
            try await finishing(within: Self.limit) {
                var messages = quiet.makeAsyncIterator()
                for round in 0..<10 {
                    try await quiet.send("round \(round)")
                    guard try await messages.next() == .text("round \(round)") else { return false }
                }
                return true
            }
        }
        #expect(
            (try? outcome.get()) == true,
            "the quiet socket's echoes never arrived while the other socket was flooded: \(outcome)")
        // The flood ends with the flooded socket's close (the server stops at the client's close frame).
        await flooded.close()
        await quiet.close()
        await transport.shutdown(gracePeriod: .zero)
    }

    // MARK: Many sockets

    /// 150 sockets of one client, each with a receive loop on its executor answering a peer that trickles
    /// its frames a byte at a time, while 150 others are opened mid-frame and their loops cancelled (closing them,
    /// so that socket numbers are reused while waits register).
    @Test(
        "many sockets with loops on the executor, trickled frames, cancelled loops and reused socket numbers",
        arguments: backends)
    func manySockets(_ backend: SocketWaiting) async throws {
        let transport = try Self.transport(backend)
        try await finishing(within: Self.limit) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<150 {
                    group.addTask {
                        let socket = try await Self.open("/echo?trickle=1", on: transport)
                        try await Task(executorPreference: socket.executor) {
                            var messages = socket.makeAsyncIterator()
                            for round in 0..<10 {
                                try await socket.send(
                                    "socket \(index) round \(round) " + String(repeating: "x", count: 200))
                                let echo = try await messages.next()
                                #expect(
                                    echo
                                        == .text("socket \(index) round \(round) " + String(repeating: "x", count: 200))
                                )
                            }
                            await socket.close()
                        }.value
                    }
                    group.addTask {
                        let socket = try await Self.open("/echo?half=1", on: transport)
                        let loop = Task(executorPreference: socket.executor) {
                            for try await _ in socket {}
                        }
                        await Task.yield()
                        loop.cancel()
                        _ = await loop.result
                        await socket.close()
                    }
                }
                try await group.waitForAll()
            }
        }
        try await finishing(within: Self.limit) { await transport.shutdown(gracePeriod: .zero) }
    }

    // MARK: Masking keys

    /// The keys were a process-wide pool, which a `fork()` copied: the parent's sockets and the child's new ones
    /// masked their next frames with the same keys. Each socket draws its own now, so a socket opened after a fork
    /// shares no key with one opened before it.
    @Test("each socket draws masking keys of its own, none repeated within or across sockets")
    func masksOfTheirOwn() {
        var (first, second) = (MaskingKeys(), MaskingKeys())
        // Two batches each: a repeat by chance among 128 keys of 32 bits is about one in a million runs.
        let keys = (0..<64).map { _ in first.next() } + (0..<64).map { _ in second.next() }
        #expect(Set(keys).count == keys.count)
    }
}
