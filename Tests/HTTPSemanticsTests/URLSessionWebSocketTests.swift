import Foundation
import RestingAuthentication
import RestingCore
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import RestingWebSocket
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WebSockets on `URLSessionClient`: a `URLSessionWebSocketTask` under the same `WebSocket` as `CurlClient`'s, its
/// handshake a call through the chain. Where FoundationNetworking is built without libcurl's WebSocket API (Linux's,
/// in Swift 6.3) the handshake still passes the chain and fails typed; where it speaks WebSocket (Apple platforms,
/// or a FoundationNetworking built against a libcurl with it) the rest runs against `websocket_server.py`.
@Suite("WebSocket on URLSessionClient", .timeLimit(.minutes(2)))
struct URLSessionWebSocketTests {
    static let server = Task { try await LocalServer.start(script: WebSocketTests.script) }

    /// Whether this process's URLSession speaks WebSocket: a task to a port nothing listens on fails with "cannot
    /// connect" where it does, and at once with "unsupported URL" where it does not.
    static let speaksWebSocket = Task<Bool, Never> {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        guard let url = URL(string: "ws://127.0.0.1:1/") else { return false }
        let task = session.webSocketTask(with: url)
        task.resume()
        do {
            _ = try await task.receive()
            return true
        } catch {
            return (error as? URLError)?.code != .unsupportedURL
        }
    }

    @Sendable static func supported() async -> Bool { await speaksWebSocket.value }
    @Sendable static func unsupported() async -> Bool { await !speaksWebSocket.value }
    static let supportedNote: Comment = "where this process's URLSession speaks WebSocket"
    static let unsupportedNote: Comment = "where this process's URLSession cannot speak WebSocket"

    /// Records the handshake requests the chain sent.
    struct HandshakeRecorder: RestingInterceptor {
        let requests = Locked<[HTTPRequest]>([])
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            requests.withLock { $0.append(request) }
            return try await execution(request)
        }
    }

    func client(
        interceptors: [any RestingInterceptor] = [], listener: EventRecorder? = nil,
        transport: URLSessionClient = URLSessionClient()
    ) async throws -> RestingClient {
        RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: transport, interceptors: interceptors,
            eventListener: listener.map { .shared($0) })
    }

    func open(
        _ path: String, options: WebSocketOptions = WebSocketOptions(), on client: RestingClient? = nil
    ) async throws -> WebSocket {
        let client = if let client { client } else { try await self.client() }
        return try await client.openWebSocket(path, options: options)
    }

    @Test(
        "without WebSocket in FoundationNetworking, the handshake passes the chain and fails typed unsupported",
        .enabled(Self.unsupportedNote, Self.unsupported))
    func unsupportedIsTyped() async throws {
        let recorder = HandshakeRecorder()
        let client = try await client(interceptors: [recorder])
        await #expect(
            throws: RestingError.unsupported(
                feature: "WebSocket (FoundationNetworking built without libcurl's WebSocket API)",
                transport: "URLSessionClient")
        ) {
            _ = try await open("/echo", on: client)
        }
        let handshake = try #require(recorder.requests.withLock { $0.first })
        #expect(handshake.upgrade == .webSocket)
        #expect(handshake.headers["Sec-WebSocket-Version"] == "13")
    }

    @Test(
        "an upgrade to anything but WebSocket is refused typed, before any task",
        .enabled(Self.unsupportedNote, Self.unsupported))
    func otherUpgradesAreUnsupported() async throws {
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: "\(try await Self.server.value.baseURL)/echo")))
        request.upgrade = ConnectionUpgrade("h2c")
        await #expect(throws: RestingError.unsupported(feature: "an upgrade to h2c", transport: "URLSessionClient")) {
            _ = try await URLSessionClient().send(request, progress: { _ in })
        }
    }

    @Test(
        "text and binary messages echo whole; the events say what went each way",
        .enabled(Self.supportedNote, Self.supported))
    func messagesEcho() async throws {
        let recorder = EventRecorder()
        let socket = try await open("/echo", on: try await client(listener: recorder))
        // FoundationNetworking hands a message over in pieces of 16 KiB (libcurl's buffer), each as a message of its
        // own: sizes stay within one piece here.
        for size in [0, 1, 125, 126, 16_000] {
            let text = String(repeating: "é", count: size / 2)
            try await socket.send(text)
            #expect(try await socket.nextMessage() == .text(text))
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await socket.send(bytes)
            #expect(try await socket.nextMessage() == .binary(bytes))
        }
        await socket.close()
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.opened(subprotocol: nil))))
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.messageSent(isText: false, bytes: 16_000))))
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.messageReceived(isText: true, bytes: 16_000))))
        #expect(recorder.kinds.last == .callEnded(status: 101))
    }

    @Test(
        "the handshake is a call: interceptors' headers go with it, the server's subprotocol is one offered",
        .enabled(Self.supportedNote, Self.supported))
    func handshakeThroughTheChain() async throws {
        let client = try await client(interceptors: [AuthInterceptor.bearer(token: "fresh")])
        let socket = try await open(
            "/auth?greet=headers&protocols=chat.v2", options: WebSocketOptions(subprotocols: ["chat.v3", "chat.v2"]),
            on: client)
        guard case .text(let json) = try await socket.nextMessage() else { throw RestingError.cancelled }
        let fields = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        let headers = Dictionary(uniqueKeysWithValues: fields.map { ($0.key.lowercased(), $0.value) })
        #expect(headers["authorization"] == "Bearer fresh")
        #expect(headers["sec-websocket-protocol"] == "chat.v3, chat.v2")
        #expect(socket.subprotocol == "chat.v2")
        await socket.close()
    }

    @Test("a refused upgrade fails as an HTTP error with its status", .enabled(Self.supportedNote, Self.supported))
    func refusedUpgrade() async throws {
        await #expect {
            _ = try await open("/refuse?status=403")
        } throws: { error in
            guard case RestingError.httpError(let refusal) = error else { return false }
            return refusal.status == 403
        }
    }

    @Test(
        "the server's close ends the messages with its code; a send after it fails typed",
        .enabled(Self.supportedNote, Self.supported))
    func serverCloses() async throws {
        // A code FoundationNetworking names: it reports any other as 1003.
        let socket = try await open("/echo?close=1001&reason=bye")
        for try await message in socket { Issue.record("unexpected \(message)") }
        #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "bye"))
        await #expect(
            throws: WebSocketFailure(.closed, "the WebSocket is closing or closed")
        ) {
            try await socket.send("too late")
        }
    }

    @Test(
        "the client's close reaches the server; cancelAll() and shutdown close open sockets",
        .enabled(Self.supportedNote, Self.supported))
    func clientCloses() async throws {
        let socket = try await open("/echo")
        try await socket.send("hello")
        #expect(try await socket.nextMessage() == .text("hello"))
        await socket.close()
        #expect(socket.closure != nil)

        let transport = URLSessionClient()
        let client = try await client(transport: transport)
        let cancelled = try await open("/echo", on: client)
        client.cancelAll()
        await #expect(throws: RestingError.cancelled) {
            for try await _ in cancelled {}
        }
        let shutDown = try await open("/echo", on: client)
        await client.shutdown(gracePeriod: .zero)
        await #expect(throws: RestingError.cancelled) {
            for try await _ in shutDown {}
        }
        await transport.shutdown(gracePeriod: .milliseconds(100))
    }

    @Test(
        "a keep-alive ping answered keeps the socket open; a server that vanishes fails it",
        .enabled(Self.supportedNote, Self.supported))
    func keepAliveAndVanishing() async throws {
        let recorder = EventRecorder()
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(20), timeout: .seconds(5)))
        let socket = try await open("/echo", options: options, on: try await client(listener: recorder))
        while recorder.kinds.filter({ $0 == .capability(WebSocketEvent.controlFrame(.pongReceived, bytes: 0)) }).count
            < 3
        {
            try await socket.send("tick")
            #expect(try await socket.nextMessage() == .text("tick"))
        }
        await socket.close()

        let vanishing = try await open("/echo?vanish=1")
        try await vanishing.send("go")
        await #expect {
            for try await _ in vanishing {}
        } throws: { error in
            guard let failure = error as? WebSocketFailure else { return false }
            return failure.kind == .connectionLost
        }
    }
}
