import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingWebSocket
import Testing

/// `CurlClient`'s WebSocket against real peers no one here wrote: the `websockets` package (the reference Python
/// implementation of RFC 6455 and 7692) and aiohttp's server, each with permessage-deflate on and off.
@Suite("WebSocket against real peers")
struct WebSocketPeerTests {
    enum Peer: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case websockets, websocketsWithoutDeflate, aiohttp, aiohttpWithoutDeflate

        var testDescription: String { rawValue }
        var deflates: Bool { self == .websockets || self == .aiohttp }
        var arguments: [String] {
            [
                "--peer", self == .websockets || self == .websocketsWithoutDeflate ? "websockets" : "aiohttp",
                "--deflate", deflates ? "on" : "off",
            ]
        }

        static let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_peers.py")
        static let servers = Locked<[Peer: Task<LocalServer, any Error>]>([:])

        /// The peer's server, started once.
        var server: LocalServer {
            get async throws {
                let arguments = arguments
                let task = Self.servers.withLock { servers in
                    if let task = servers[self] { return task }
                    let task = Task { try await LocalServer.start(script: Self.script, arguments: arguments) }
                    servers[self] = task
                    return task
                }
                return try await task.value
            }
        }
    }

    static let transport = Result { try CurlClient() }

    func open(_ peer: Peer) async throws -> WebSocket {
        let client = RestingClient(baseUrl: try await peer.server.baseURL, httpClient: try Self.transport.get())
        return try await client.openWebSocket("/echo", options: WebSocketOptions(compression: .init(minimumSize: 0)))
    }

    @Test("messages of 0 bytes to 16 MiB echo whole, compressed where the peer agreed", arguments: Peer.allCases)
    func echo(_ peer: Peer) async throws {
        let socket = try await open(peer)
        #expect(socket.isCompressed == peer.deflates)
        for size in [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20] {
            let text = String(repeating: "aé", count: size / 3)
            try await socket.send(text)
            #expect(try await socket.nextMessage() == .text(text))
            let bytes = Self.randomBytes(size)  // incompressible: a compressed frame is larger than its message
            try await socket.send(bytes)
            #expect(try await socket.nextMessage() == .binary(bytes))
        }
        try await socket.ping(Data("are you there".utf8))
        try await socket.send("still here")
        #expect(try await socket.nextMessage() == .text("still here"))
        await socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "done")
        #expect(socket.closure != nil, "the peer answered the close (with the code of its choice)")
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        for index in words.indices { words[index] = generator.next() }
        return words.withUnsafeBytes { Data($0.prefix(count)) }
    }

    @Test("the peer's close ends the messages with its code and reason", arguments: Peer.allCases)
    func peerCloses(_ peer: Peer) async throws {
        let socket = try await open(peer)
        try await socket.send("close:4002:as asked")
        for try await message in socket { Issue.record("unexpected \(message)") }
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4002), reason: "as asked"))
    }

    @Test("a message past the client's limit closes the socket with 1009", arguments: Peer.allCases)
    func oversizedMessage(_ peer: Peer) async throws {
        let client = RestingClient(baseUrl: try await peer.server.baseURL, httpClient: try Self.transport.get())
        let socket = try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")),
            options: WebSocketOptions(maximumMessageSize: 1 << 16, compression: .init(minimumSize: 0)))
        try await socket.send(Data(count: 1 << 17))  // zeros: a few hundred bytes once deflated
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard let failure = error as? WebSocketFailure else { return false }
            return failure.kind == .messageTooLarge
        }
    }
}
