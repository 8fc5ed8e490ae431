import Foundation
import RestingCore
import RestingServerHarness
import RestingWebSocket
import Testing

/// The WebSocket checks (``TransportConformance/Capabilities/upgradesConnections``), against the kit's WebSocket
/// server (`websocket_server.py`, Python's standard library: RFC 6455 and permessage-deflate). A transport that
/// upgrades connections hands RestingKit the connection after a `101`; RestingKit speaks the protocol over it, so
/// what these checks judge is the transport's part: the handshake's exchange, bytes both ways without loss, a read
/// that waits for the socket, a write that waits for the network, a close that closes.
extension TransportConformance {
    /// The WebSocket server the kit ships, started on first use and stopped with the process.
    public static let sharedWebSocketServer = Task<LocalServer, any Error> {
        guard let script = Bundle.module.url(forResource: "websocket_server", withExtension: "py") else {
            throw LocalServer.StartError.scriptNotFound("websocket_server.py in the kit's resources")
        }
        return try await LocalServer.start(script: script)
    }

    /// What the WebSocket server saw of the connection tagged `tag`.
    struct WebSocketStats: Decodable {
        let sent: Int
        let received: Int
        let closed: Int?
        let stalled: Bool
    }

    /// Opens `path` of the WebSocket server through a client of this transport.
    func webSocket(_ path: String, options: WebSocketOptions = WebSocketOptions()) async throws -> WebSocket {
        let client = RestingClient(baseUrl: try await Self.sharedWebSocketServer.value.baseURL, httpClient: transport)
        return try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)), options: options)
    }

    /// The server's view of connection `tag`, once it has sent `sent` messages, has closed (`closed`), or found its
    /// socket full (`stalled`).
    func webSocketStats(_ tag: String, sent: Int = 0, closed: Bool = false, stalled: Bool = false) async throws
        -> WebSocketStats
    {
        let base = try await Self.sharedWebSocketServer.value.baseURL
        var query = "tag=\(tag)&at_least=\(sent)"
        if closed { query += "&closed=1" }
        if stalled { query += "&stalled=1" }
        let response = try await send(
            HTTPRequest(method: .get, url: try #require(URL(string: "\(base)/stats?\(query)"))))
        return try JSONDecoder().decode(WebSocketStats.self, from: response.body.bytes)
    }

    /// The next message, or a recorded issue.
    func nextMessage(_ socket: WebSocket) async throws -> WebSocketMessage? {
        var iterator = socket.makeAsyncIterator()
        let message = try await iterator.next()
        #expect(message != nil, "\(name): the messages ended")
        return message
    }

    /// Whether the transport has no connection to hand over, in which case the checks are not its: it must refuse the
    /// upgrade as unsupported, or speak WebSocket itself (a ``/RestingWebSocketCore/TransportWebSocket``, as URLSession where
    /// it can) and echo a message. A recorded issue otherwise.
    func refusesUpgrades() async throws -> Bool {
        guard !capabilities.upgradesConnections else { return false }
        do {
            let socket = try await webSocket("/echo")
            try await socket.send("spoken by the transport")
            #expect(try await nextMessage(socket) == .text("spoken by the transport"), "\(name)")
            await socket.close()
        } catch RestingError.unsupported {
            // Refused typed, as it must where it cannot speak WebSocket.
        }
        return true
    }

    /// Messages of 0 B to 16 MiB, text and binary, come back whole with compression off, declined and agreed (with
    /// and without context takeover); a message the server sends in fragments with pings between them arrives whole;
    /// sends from many tasks at once go out whole.
    public func webSocketMessages() async throws {
        guard try await !refusesUpgrades() else { return }
        let ways: [(query: String, options: WebSocketOptions, compressed: Bool)] = [
            ("deflate=1", WebSocketOptions(compression: nil), false),
            ("deflate=0", WebSocketOptions(compression: .init(minimumSize: 0)), false),
            ("deflate=1", WebSocketOptions(compression: .init(minimumSize: 0)), true),
            ("deflate=1", WebSocketOptions(compression: .init(minimumSize: 0, noContextTakeover: true)), true),
        ]
        for way in ways {
            let socket = try await webSocket("/echo?\(way.query)", options: way.options)
            #expect(socket.isCompressed == way.compressed, "\(name): \(way.query)")
            // 16 MiB once: the length's 8-byte form, and a message as large as the default limit allows.
            let largest = way.options.compression == nil ? 16 << 20 : 1 << 20
            for size in [0, 1, 125, 126, 65_535, 65_536, largest] {
                let text = String(repeating: "é", count: size / 2)
                try await socket.send(text)
                #expect(try await nextMessage(socket) == .text(text), "\(name): \(size) bytes of text")
                let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                try await socket.send(bytes)
                #expect(try await nextMessage(socket) == .binary(bytes), "\(name): \(size) bytes")
            }
            await socket.close()
        }
        for (path, compression) in [
            ("/echo?fragment=1000", nil), ("/echo?fragment=100", WebSocketOptions.Compression()),
        ] {
            let socket = try await webSocket(path, options: WebSocketOptions(compression: compression))
            let text = (0..<500).map { "line \($0): \(String(repeating: "ü", count: $0 % 17))\n" }.joined()
            try await socket.send(text)
            #expect(try await nextMessage(socket) == .text(text), "\(name): fragments with pings between")
            await socket.close()
        }
        let socket = try await webSocket("/echo")
        let messages = (0..<50).map { String(repeating: Character(UnicodeScalar(65 + $0 % 26)!), count: 10_000 + $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for message in messages { group.addTask { try await socket.send(message) } }
            try await group.waitForAll()
        }
        var received: [String] = []
        for _ in messages {
            guard case .text(let text)? = try await nextMessage(socket) else { break }
            received.append(text)
        }
        #expect(received.sorted() == messages.sorted(), "\(name): concurrent sends interleaved")
        await socket.close()
    }

    /// The server's close ends the messages with its code and reason, and a send after it fails typed; the client's
    /// close reaches the server with its code.
    public func webSocketClosing() async throws {
        guard try await !refusesUpgrades() else { return }
        let closed = try await webSocket("/echo?close=4001&reason=bye%20now")
        for try await message in closed { Issue.record("\(name): unexpected \(message)") }
        #expect(closed.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4001), reason: "bye now"))
        await #expect(
            throws: WebSocketFailure(.closed, "the WebSocket is closing or closed")
        ) {
            try await closed.send("too late")
        }
        let tag = UUID().uuidString
        let closing = try await webSocket("/echo?tag=\(tag)")
        try await closing.send("hello")
        _ = try await nextMessage(closing)
        await closing.close(code: WebSocketCloseCode(rawValue: 4321), reason: "done")
        #expect(closing.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4321)), "\(name)")
        #expect(try await webSocketStats(tag, closed: true).closed == 4321, "\(name)")
    }

    /// What a hostile or broken server does ends in its typed error and, where RFC 6455 gives one, the close code
    /// the server is told: a refused upgrade (an HTTP error with status, headers and body), a `101` that is not
    /// RFC 6455's, a masked frame, a reserved bit or opcode, an oversized control frame, text that is not UTF-8, a
    /// frame or a compressed message past the limit, a server that vanishes, a server that answers no ping.
    public func webSocketHostilePeers() async throws {
        guard try await !refusesUpgrades() else { return }
        await #expect {
            _ = try await webSocket("/refuse?status=403")
        } throws: { error in
            guard case RestingError.httpError(let refusal) = error else { return false }
            return refusal.status == 403 && refusal.body == Data(#"{"refused": true}"#.utf8)
                && refusal.headers["Content-Type"] == "application/json"
        }
        for query in [
            "accept=wrong", "extension=permessage-foo&deflate=0", "deflate_params=client_max_window_bits=10",
            "deflate_params=server_max_window_bits=16", "deflate_params=mystery",
        ] {
            // Refused as an invalid handshake, or by a platform that checks the 101 itself as a failed exchange.
            await #expect("\(name): \(query)") {
                _ = try await webSocket("/echo?\(query)")
            } throws: { error in
                (error as? WebSocketFailure)?.kind == .handshakeInvalid || error is RestingError
            }
        }
        let violations: [(String, WebSocketFailure.Kind, Int)] = [
            ("masked", .protocolViolation, 1002), ("rsv", .protocolViolation, 1002),
            ("opcode", .protocolViolation, 1002),
            ("control", .protocolViolation, 1002), ("utf8", .invalidText, 1007), ("size", .messageTooLarge, 1009),
            ("bomb", .messageTooLarge, 1009),
        ]
        for (bad, kind, code) in violations {
            let tag = UUID().uuidString
            let socket = try await webSocket(
                "/echo?bad=\(bad)&tag=\(tag)", options: WebSocketOptions(maximumMessageSize: 65_536))
            try await socket.send("go")
            await #expect {
                for try await _ in socket {}
            } throws: { error in
                guard let failure = error as? WebSocketFailure else { return false }
                return failure.kind == kind
            }
            #expect(try await webSocketStats(tag, closed: true).closed == code, "\(name): \(bad)")
        }
        let vanishing = try await webSocket("/echo?vanish=1")
        try await vanishing.send("go")
        await #expect {
            for try await _ in vanishing {}
        } throws: { error in
            guard let failure = error as? WebSocketFailure else { return false }
            return failure.kind == .connectionLost
        }
        let keepAlive = WebSocketOptions(keepAlive: .init(interval: .milliseconds(50), timeout: .milliseconds(200)))
        let silent = try await webSocket("/echo?silent=1", options: keepAlive)
        await #expect {
            for try await _ in silent {}
        } throws: { error in
            guard let failure = error as? WebSocketFailure else { return false }
            return failure.kind == .pingTimeout
        }
    }

    /// Back-pressure both ways. A reader that does not read stops the socket: the server finds its socket full
    /// while 26 MiB wait for the reader, then every message arrives. A server that does not read makes `send` wait:
    /// of 64 one-MiB messages, no more than the buffers between hold are sent before it reads again, then all arrive
    /// intact. (The half second the sender is given is the behaviour under test, not a synchronisation: a bounded
    /// sender never passes the buffers, whatever the time.)
    public func webSocketBackPressure() async throws {
        guard try await !refusesUpgrades() else { return }
        let count = 400
        let tag = UUID().uuidString
        let flooded = try await webSocket(
            "/echo?flood=\(count)&size=65536&tag=\(tag)", options: WebSocketOptions(receiveBufferSize: 65_536))
        #expect(try await webSocketStats(tag, stalled: true).sent < count, "\(name): the reader's socket never filled")
        var read = 0
        for try await message in flooded {
            #expect(message.byteCount == 65_536)
            read += 1
            if read == count { break }
        }
        #expect(try await webSocketStats(tag, sent: count).sent == count, "\(name)")
        await flooded.close()

        let stalledTag = UUID().uuidString
        let stalled = try await webSocket(
            "/echo?stall=1&tag=\(stalledTag)", options: WebSocketOptions(compression: nil))
        let sent = Locked(0)
        let message = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sender = Task {
            for _ in 0..<64 {
                try await stalled.send(message)
                sent.withLock { $0 += 1 }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(sent.withLock { $0 } < 64, "\(name): 64 MiB were taken while the server read nothing")
        let base = try await Self.sharedWebSocketServer.value.baseURL
        _ = try await send(
            HTTPRequest(method: .get, url: try #require(URL(string: "\(base)/release?tag=\(stalledTag)"))))
        for _ in 0..<64 {
            #expect(try await nextMessage(stalled) == .binary(message), "\(name)")
        }
        try await sender.value
        await stalled.close()
    }
}
