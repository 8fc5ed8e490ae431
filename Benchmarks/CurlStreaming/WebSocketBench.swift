import RestingCore
import RestingCurl
import RestingWebSocket

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The WebSocket benchmark's CurlClient side (`Benchmarks/websocket.py`), against `Benchmarks/c/ws_echo_server.c`, as
/// `Benchmarks/c/ws_client.c` does it in C: a `RestingClient`'s `webSocket`, compression off (the C floor has none).
///   ws-echo BASE COUNT       COUNT round trips of a 5-byte text message, one socket: prints messages a second
///   ws-echo-executor BASE COUNT   ws-echo, its loop on the socket's executor (the thread that reads the socket)
///   ws-echo-1m BASE COUNT    COUNT round trips of a 1 MiB binary message: prints MiB a second (one way)
///   ws-open BASE COUNT       COUNT sockets open at once, idle: prints the resident KiB each costs
enum WebSocketBench {
    static let modes: Set<String> = ["ws-echo", "ws-echo-executor", "ws-echo-1m", "ws-open"]

    static func run(_ mode: String, base: String, count: Int) async throws {
        let client = RestingClient(baseUrl: base, httpClient: try CurlClient())
        let echo = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo"))
        let options = WebSocketOptions(compression: nil)
        if mode == "ws-open" {
            OpenStreams.raiseOpenFileLimit()
            let before = OpenStreams.residentKiB()
            var sockets: [WebSocket] = []
            sockets.reserveCapacity(count)
            // In batches: a handshake is a thread's connect, and ten thousand at once would be ten thousand threads.
            for start in stride(from: 0, to: count, by: 64) {
                try await withThrowingTaskGroup(of: WebSocket.self) { group in
                    for _ in start..<min(start + 64, count) {
                        group.addTask { try await client.webSocket(echo, options: options) }
                    }
                    for try await socket in group { sockets.append(socket) }
                }
            }
            let kib = Double(OpenStreams.residentKiB() - before) / Double(count)
            print((kib * 10).rounded() / 10)
            for socket in sockets { await socket.close() }
            return
        }
        let socket = try await client.webSocket(echo, options: options)
        if mode == "ws-echo-executor" {
            try await Task(executorPreference: socket.executor) {
                try await roundTrips(socket, mode: mode, count: count)
            }.value
        } else {
            try await roundTrips(socket, mode: mode, count: count)
        }
    }

    /// `count` round trips, then the close: prints the messages (or MiB) a second.
    private static func roundTrips(_ socket: WebSocket, mode: String, count: Int) async throws {
        var messages = socket.makeAsyncIterator()
        let bytes = (0..<(1 << 20)).map { (index: Int) -> UInt8 in UInt8(truncatingIfNeeded: index &* 31) }
        let message: WebSocketMessage = mode == "ws-echo-1m" ? .binary(Data(bytes)) : .text("hello")
        let start = ContinuousClock.now
        for _ in 0..<count {
            try await socket.send(message)
            guard try await messages.next()?.byteCount == message.byteCount else { throw RestingError.cancelled }
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        print((Double(count) / seconds * 10).rounded() / 10)
        await socket.close()
    }
}
