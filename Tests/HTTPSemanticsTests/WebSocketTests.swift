import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import RestingURLSession
import Testing

/// WebSockets on `CurlClient` against `websocket_server.py` (RFC 6455 in Python's standard library): messages both
/// ways, the close handshake both ways, a peer that breaks the protocol, vanishes or goes quiet, a reader that does
/// not read, and the handshake as a call through the chain.
@Suite("WebSocket on CurlClient")
struct WebSocketTests {
    static let server = Task { try await LocalServer.start(script: script) }
    static let otherServer = Task { try await LocalServer.start(script: script) }
    static let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py")
    static let transport = Result { try CurlClient() }

    struct Stats: Decodable, Equatable {
        let sent: Int
        let received: Int
        let closed: Int?
    }

    /// A client of the WebSocket server, with `interceptors` and `networkInterceptors`.
    func client(
        interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor] = [],
        listener: EventRecorder? = nil
    ) async throws -> RestingClient {
        RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try Self.transport.get(),
            interceptors: interceptors, networkInterceptors: networkInterceptors,
            eventListener: listener.map { .shared($0) })
    }

    func open(
        _ path: String, options: WebSocketOptions = WebSocketOptions(), on client: RestingClient? = nil
    ) async throws -> WebSocket {
        let client = if let client { client } else { try await self.client() }
        return try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)), options: options)
    }

    /// What the server saw of connection `tag`; waits until it has sent at least `sent` messages, and with `closed`
    /// until the connection has closed.
    func stats(_ tag: String, sent: Int = 0, closed: Bool = false) async throws -> Stats {
        let query = "tag=\(tag)&at_least=\(sent)" + (closed ? "&closed=1" : "")
        let url = try #require(URL(string: "\(try await Self.server.value.baseURL)/stats?\(query)"))
        let response = try await Self.transport.get().send(HTTPRequest(method: .get, url: url), progress: { _ in })
        return try JSONDecoder().decode(Stats.self, from: try await response.body.collect(upTo: 1 << 16))
    }

    /// Reads the next message, failing the test when there is none.
    func next(_ socket: WebSocket) async throws -> WebSocketMessage {
        var iterator = socket.makeAsyncIterator()
        return try #require(try await iterator.next())
    }

    /// The ways of compressing each echo test runs with: none offered, offered and declined, agreed, and agreed with
    /// no context kept between messages.
    enum Compression: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case notOffered, declined, deflate, deflateWithoutContextTakeover

        var testDescription: String { rawValue }
        var options: WebSocketOptions {
            switch self {
            case .notOffered: WebSocketOptions(compression: nil)
            case .declined, .deflate: WebSocketOptions(compression: .init(minimumSize: 0))
            case .deflateWithoutContextTakeover:
                WebSocketOptions(compression: .init(minimumSize: 0, noContextTakeover: true))
            }
        }
        var query: String { self == .declined ? "deflate=0" : "deflate=1" }
        var agreed: Bool { self == .deflate || self == .deflateWithoutContextTakeover }
    }

    @Test(
        "text and binary messages from 0 bytes to 1 MiB come back whole, across every length encoding",
        arguments: Compression.allCases)
    func echo(_ compression: Compression) async throws {
        let socket = try await open("/echo?\(compression.query)", options: compression.options)
        #expect(socket.isCompressed == compression.agreed)
        for size in [0, 1, 125, 126, 65_535, 65_536, 1 << 20] {
            let text = String(repeating: "é", count: size / 2)
            try await socket.send(text)
            #expect(try await next(socket) == .text(text))
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await socket.send(bytes)
            #expect(try await next(socket) == .binary(bytes))
        }
        await socket.close()
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    @Test("a message the server sends in fragments with pings between them arrives whole; each ping is answered")
    func fragmentsWithPingsBetween() async throws {
        let recorder = EventRecorder()
        let socket = try await open(
            "/echo?fragment=1000", options: WebSocketOptions(compression: nil), on: try await client(listener: recorder)
        )
        let text = String(repeating: "ü", count: 5_000)  // 10 000 bytes: ten fragments, a character cut in each
        try await socket.send(text)
        #expect(try await next(socket) == .text(text))
        await socket.close()
        let pongs = recorder.kinds.filter { $0 == .webSocketControlFrame(.pongSent, bytes: 7) }
        #expect(pongs.count == 9)
        #expect(recorder.kinds.contains(.webSocketOpened(subprotocol: nil)))
        #expect(recorder.kinds.contains(.webSocketMessageSent(isText: true, bytes: 10_000)))
        #expect(recorder.kinds.contains(.webSocketMessageReceived(isText: true, bytes: 10_000)))
        #expect(recorder.kinds.last == .callEnded(status: 101))
    }

    @Test("the server picks a subprotocol among those offered; one it was not offered fails the handshake")
    func subprotocols() async throws {
        let chat = try await open(
            "/echo?protocols=chat.v2", options: WebSocketOptions(subprotocols: ["chat.v3", "chat.v2"]))
        #expect(chat.subprotocol == "chat.v2")
        await chat.close()
        let none = try await open("/echo?protocols=other", options: WebSocketOptions(subprotocols: ["chat.v3"]))
        #expect(none.subprotocol == nil)
        await none.close()
    }

    @Test(
        "a 101 that is not RFC 6455's fails typed, its connection closed",
        arguments: [
            "accept=wrong", "extension=permessage-foo&deflate=0", "deflate_params=client_max_window_bits=10",
            "deflate_params=server_max_window_bits=16", "deflate_params=mystery",
            "deflate_params=x-webkit-deflate-frame",
        ])
    func invalidHandshake(_ query: String) async throws {
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
        await #expect {
            _ = try await open("/echo?\(query)", on: client)
        } throws: { error in
            guard case RestingError.webSocketFailed(let failure) = error else { return false }
            return failure.kind == .handshakeInvalid
        }
        #expect(transport.upgrades.count == 0)
    }

    @Test("a refused upgrade is the HTTP error of any call: status, headers and body")
    func refusedUpgrade() async throws {
        await #expect {
            _ = try await open("/refuse?status=403")
        } throws: { error in
            guard case RestingError.httpError(let refusal) = error else { return false }
            return refusal.status == 403 && refusal.body == Data(#"{"refused": true}"#.utf8)
                && refusal.headers["Content-Type"] == "application/json"
        }
    }

    @Test("the server's close ends the messages; the closure has its code and reason")
    func serverCloses() async throws {
        let socket = try await open("/echo?close=4001&reason=bye%20now")
        for try await _ in socket { Issue.record("no message was sent") }
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4001), reason: "bye now"))
        await #expect(
            throws: RestingError.webSocketFailed(WebSocketFailure(.closed, "the WebSocket is closing or closed"))
        ) {
            try await socket.send("too late")
        }
    }

    @Test("the client's close reaches the server with its code, and the server's answer ends the close")
    func clientCloses() async throws {
        let socket = try await open("/echo?tag=client-close")
        try await socket.send("hello")
        _ = try await next(socket)
        await socket.close(code: WebSocketCloseCode(rawValue: 4321), reason: "done")
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4321)))
        #expect(try await stats("client-close", closed: true).closed == 4321)
    }

    @Test(
        "a server that breaks RFC 6455 fails the socket typed, and is told why with the close code",
        arguments: [
            ("masked", WebSocketFailure.Kind.protocolViolation, 1002), ("rsv", .protocolViolation, 1002),
            ("opcode", .protocolViolation, 1002), ("control", .protocolViolation, 1002), ("utf8", .invalidText, 1007),
            ("size", .messageTooLarge, 1009), ("bomb", .messageTooLarge, 1009),
        ])
    func protocolViolations(_ bad: String, _ kind: WebSocketFailure.Kind, _ code: Int) async throws {
        let tag = "bad-\(bad)"
        let socket = try await open(
            "/echo?bad=\(bad)&tag=\(tag)", options: WebSocketOptions(maximumMessageSize: 65_536))
        try await socket.send("go")
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard case RestingError.webSocketFailed(let failure) = error else { return false }
            return failure.kind == kind
        }
        #expect(try await stats(tag, closed: true).closed == code)
    }

    @Test("a server that vanishes without a close frame fails the socket as a lost connection")
    func vanishingPeer() async throws {
        let socket = try await open("/echo?vanish=1")
        try await socket.send("go")
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard case RestingError.webSocketFailed(let failure) = error else { return false }
            return failure.kind == .connectionLost
        }
        #expect(socket.closure == nil)
    }

    @Test("a peer that answers no ping fails the socket once the keep-alive's timeout passes")
    func deadPeer() async throws {
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(50), timeout: .milliseconds(200)))
        let socket = try await open("/echo?silent=1", options: options)
        var failure: WebSocketFailure?
        // snippet: websocket-failures
        do {
            for try await message in socket { print(message) }
            print("closed by the server with \(socket.closure?.code ?? .noStatusReceived)")
        } catch RestingError.webSocketFailed(let reason) where reason.kind == .pingTimeout {
            failure = reason  // the peer went quiet: open a new socket
        }
        // end snippet
        #expect(failure?.kind == .pingTimeout)
    }

    @Test("a peer that answers pings keeps a socket with a keep-alive open")
    func livePeer() async throws {
        let recorder = EventRecorder()
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(20), timeout: .seconds(5)))
        let socket = try await open("/echo", options: options, on: try await client(listener: recorder))
        // Three pongs answered: the socket is still open and echoes.
        while recorder.kinds.filter({ $0 == .webSocketControlFrame(.pongReceived, bytes: 0) }).count < 3 {
            try await socket.send("tick")
            #expect(try await next(socket) == .text("tick"))
        }
        await socket.close()
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    @Test("sends from many tasks at once go out whole, one after the other")
    func concurrentSends() async throws {
        let socket = try await open("/echo")
        let messages = (0..<50).map { String(repeating: Character(UnicodeScalar(65 + $0 % 26)!), count: 10_000 + $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for message in messages { group.addTask { try await socket.send(message) } }
            try await group.waitForAll()
        }
        var received: [String] = []
        for _ in messages {
            guard case .text(let text) = try await next(socket) else { break }
            received.append(text)
        }
        #expect(received.sorted() == messages.sorted())
        await socket.close()
    }

    @Test("a reader that does not read stops the socket: the server cannot send it all until the reader catches up")
    func slowReader() async throws {
        let count = 400
        let socket = try await open(
            "/echo?flood=\(count)&size=65536&tag=slow-reader", options: WebSocketOptions(receiveBufferSize: 65_536))
        // The server has sent what the buffers between hold, and waits: 26 MiB do not fit in them.
        let stalled = try await stats("slow-reader", sent: 1)
        #expect(stalled.sent < count)
        var read = 0
        for try await message in socket {
            #expect(message.byteCount == 65_536)
            read += 1
            if read == count { break }
        }
        #expect(try await stats("slow-reader", sent: count).sent == count)
        await socket.close()
    }

    @Test("cancelAll() closes an open socket with 1001: the reader gets .cancelled, the server a close frame")
    func cancelAllClosesTheSocket() async throws {
        let client = try await client()
        let socket = try await open("/echo?tag=cancel-all", on: client)
        try await socket.send("hello")
        _ = try await next(socket)
        client.cancelAll()
        await #expect(throws: RestingError.cancelled) {
            for try await _ in socket {}
        }
        #expect(try await stats("cancel-all", closed: true).closed == 1001)
    }

    @Test("cancelling the reading task closes the socket with 1001")
    func cancelledReaderClosesTheSocket() async throws {
        let socket = try await open("/echo?tag=cancel-reader")
        let reader = Task { for try await _ in socket {} }
        reader.cancel()
        await #expect(throws: RestingError.cancelled) { try await reader.value }
        #expect(try await stats("cancel-reader", closed: true).closed == 1001)
    }

    @Test("shutting the client down closes its open sockets, and then returns")
    func shutdownClosesTheSocket() async throws {
        let client = try await client()
        let socket = try await open("/echo?tag=shutdown", on: client)
        await client.shutdown(gracePeriod: .zero)
        await #expect(throws: RestingError.cancelled) {
            for try await _ in socket {}
        }
        #expect(try await stats("shutdown", closed: true).closed == 1001)
    }

    @Test("the transport's shutdown closes upgraded connections once its grace period has passed")
    func transportShutdown() async throws {
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
        let socket = try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")))
        await transport.shutdown(gracePeriod: .milliseconds(10))
        #expect(transport.upgrades.count == 0)
        await #expect(throws: RestingError.self) {
            for try await _ in socket {}
        }
    }

    @Test("URLSessionClient refuses the upgrade typed: it hands no connection over")
    func urlSessionIsUnsupported() async throws {
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: URLSessionClient())
        await #expect(
            throws: RestingError.unsupported(feature: "WebSocket (a connection upgrade)", transport: "URLSessionClient")
        ) {
            _ = try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")))
        }
    }

    // MARK: The handshake is a call

    /// A token that is stale until refreshed.
    struct RotatingToken: CredentialProvider {
        let refreshes = Locked(0)
        func credential() async throws -> String { "Bearer stale" }
        func refreshedCredential(after rejected: String) async throws -> String {
            refreshes.withLock { $0 += 1 }
            return "Bearer fresh"
        }
    }

    /// Adds a `traceparent`, as the tracing integration does, on every hop.
    struct TraceContext: RestingInterceptor {
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            var request = request
            request.headers.replaceOrAdd(
                name: "traceparent", value: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            return try await execution(request)
        }
    }

    /// The handshake's headers as the server saw them (the `greet=headers` message).
    func handshakeHeaders(_ socket: WebSocket) async throws -> [String: String] {
        guard case .text(let json) = try await next(socket) else { throw RestingError.cancelled }
        return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
    }

    @Test("a handshake answered 401 is refreshed by the auth interceptor and sent again, like any call")
    func tokenRefreshedOn401() async throws {
        let token = RotatingToken()
        let baseUrl = try await Self.server.value.baseURL
        let httpClient = try Self.transport.get()
        // snippet: websocket-through-the-chain
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: httpClient, interceptors: [AuthInterceptor(provider: token)])
        let live = Endpoint<Nothing, Nothing>(.get, "/auth?greet=headers")
        let socket = try await client.webSocket(RestingRequest(endpoint: live))  // a 401 is refreshed, then sent again
        // end snippet
        #expect(try await handshakeHeaders(socket)["Authorization"] == "Bearer fresh")
        #expect(token.refreshes.withLock { $0 } == 1)
        await socket.close()
    }

    @Test("the cookie jar's cookie and a network interceptor's traceparent go with the handshake")
    func cookieAndTraceContext() async throws {
        let jar = InMemoryCookieJar()
        let baseURL = try #require(URL(string: try await Self.server.value.baseURL))
        try await jar.receive(setCookieFields: ["session=abc; Path=/"], from: baseURL)
        let client = try await client(
            interceptors: [CookieInterceptor(jar: jar)], networkInterceptors: [TraceContext()])
        let socket = try await open("/cookie?greet=headers", on: client)
        let headers = try await handshakeHeaders(socket)
        #expect(headers["Cookie"] == "session=abc")
        #expect(headers["traceparent"] == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        #expect(headers["Sec-WebSocket-Version"] == "13")
        await socket.close()
    }

    @Test("a handshake redirected to another origin is followed without its credential")
    func crossOriginRedirectDropsTheCredential() async throws {
        let other = try await Self.otherServer.value.baseURL
        let target = "\(other)/echo?greet=headers".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let client = try await client(interceptors: [AuthInterceptor.bearer(token: "secret")])
        let socket = try await open("/redirect?status=307&to=\(target)", on: client)
        let headers = try await handshakeHeaders(socket)
        #expect(headers["Authorization"] == nil)
        #expect(headers["Upgrade"] == "websocket")
        #expect(headers["Host"] == String(other.dropFirst("http://".count)))
        await socket.close()
    }

    @Test("a cache, de-duplication and hedging leave handshakes alone: two sockets opened together are two connections")
    func linksThatWouldShareOrRepeatACallStandAside() async throws {
        let transport = try CurlClient()
        let client = RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: transport,
            interceptors: [
                HTTPCacheInterceptor(store: MemoryCacheStore()), DeduplicationInterceptor(),
                HedgingInterceptor(delay: .fixed(.zero), maximumHedges: 2),
            ])
        async let first = open("/echo", on: client)
        async let second = open("/echo", on: client)
        let sockets = try await [first, second]
        #expect(transport.upgrades.count == 2)
        for (index, socket) in sockets.enumerated() {
            try await socket.send("socket \(index)")
            #expect(try await next(socket) == .text("socket \(index)"))
            await socket.close()
        }
        #expect(transport.upgrades.count == 0)
    }

    @Test("a compressed fragmented message with pings between its fragments inflates whole; a server window is agreed")
    func compressedFragments() async throws {
        let socket = try await open(
            "/echo?fragment=100&deflate_params=server_max_window_bits=10",
            options: WebSocketOptions(compression: .init(minimumSize: 0)))
        #expect(socket.isCompressed)
        let text = (0..<2_000).map { "line \($0): \(String(repeating: "ü", count: $0 % 17))\n" }.joined()
        try await socket.send(text)
        #expect(try await next(socket) == .text(text))
        await socket.close()
    }
}
