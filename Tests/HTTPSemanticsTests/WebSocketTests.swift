import Foundation
import RestingAuthentication
import RestingCache
import RestingCookies
import RestingCore
import RestingCurl
import RestingResilience
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import RestingURLSession
import RestingWebSocket
import Testing

/// WebSockets on `CurlClient` against the conformance kit's `websocket_server.py`, for what the kit's WebSocket checks
/// (which both transports run in ConformanceTests) do not cover: the handshake as a call through the chain, the
/// events, keep-alive, subprotocols, and every way a socket is cancelled or shut down.
@Suite("WebSocket on CurlClient", .timeLimit(.minutes(5)))
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
        return try await client.openWebSocket(path, options: options)
    }

    /// What the server saw of connection `tag`; waits until it has sent at least `sent` messages, and with `closed`
    /// until the connection has closed.
    func stats(_ tag: String, sent: Int = 0, closed: Bool = false) async throws -> Stats {
        let query = "tag=\(tag)&at_least=\(sent)" + (closed ? "&closed=1" : "")
        let url = try #require(URL(string: "\(try await Self.server.value.baseURL)/stats?\(query)"))
        let response = try await Self.transport.get().send(HTTPRequest(method: .get, url: url), progress: { _ in })
        return try JSONDecoder().decode(Stats.self, from: try await response.body.collect(upTo: 1 << 16))
    }

    @Test("a message the server sends in fragments with pings between them arrives whole; each ping is answered")
    func fragmentsWithPingsBetween() async throws {
        let recorder = EventRecorder()
        let socket = try await open(
            "/echo?fragment=1000", options: WebSocketOptions(compression: nil), on: try await client(listener: recorder)
        )
        let text = String(repeating: "ü", count: 5_000)  // 10 000 bytes: ten fragments, a character cut in each
        try await socket.send(text)
        #expect(try await socket.nextMessage() == .text(text))
        await socket.close()
        let pongs = recorder.kinds.filter { $0 == .capability(WebSocketEvent.controlFrame(.pongSent, bytes: 7)) }
        #expect(pongs.count == 9)
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.opened(subprotocol: nil))))
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.messageSent(isText: true, bytes: 10_000))))
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.messageReceived(isText: true, bytes: 10_000))))
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

    @Test("a peer that answers no ping fails the socket once the keep-alive's timeout passes")
    func deadPeer() async throws {
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(50), timeout: .milliseconds(200)))
        let socket = try await open("/echo?silent=1", options: options)
        var failure: WebSocketFailure?
        // snippet: websocket-failures
        do {
            for try await message in socket { print(message) }
            print("closed by the server with \(socket.closure?.code ?? .noStatusReceived)")
        } catch let reason as WebSocketFailure where reason.kind == .pingTimeout {
            failure = reason  // the peer went quiet: open a new socket
        }
        // end snippet
        #expect(failure?.kind == .pingTimeout)
    }

    @Test("a peer that answers pings keeps a socket with a keep-alive open")
    func livePeer() async throws {
        let recorder = EventRecorder()
        // A pong may wait seconds for a starved reading task under a sanitizer: the timeout is not what is tested.
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(20), timeout: .seconds(60)))
        let socket = try await open("/echo", options: options, on: try await client(listener: recorder))
        // Three pongs answered: the socket is still open and echoes.
        while recorder.kinds.filter({ $0 == .capability(WebSocketEvent.controlFrame(.pongReceived, bytes: 0)) }).count
            < 3
        {
            try await socket.send("tick")
            #expect(try await socket.nextMessage() == .text("tick"))
        }
        await socket.close()
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    @Test("cancelAll() closes an open socket with 1001: the reader gets .cancelled, the server a close frame")
    func cancelAllClosesTheSocket() async throws {
        let client = try await client()
        let socket = try await open("/echo?tag=cancel-all", on: client)
        try await socket.send("hello")
        _ = try await socket.nextMessage()
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
        await #expect {
            for try await _ in socket {}
        } throws: { $0 is any CallFailure }
    }

    @Test("the transport's graceful shutdown closes an open socket with a close frame: the peer sees 1001, not a reset")
    func transportShutdownSaysGoingAway() async throws {
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
        let socket = try await client.openWebSocket("/echo?tag=transport-shutdown")
        await transport.shutdown(gracePeriod: .zero)
        await #expect(throws: RestingError.cancelled) {
            for try await _ in socket {}
        }
        #expect(try await stats("transport-shutdown", closed: true).closed == 1001)
    }

    @Test("a socket outlives the last reference to its client and its transport, and closes cleanly after")
    func outlivesItsTransport() async throws {
        let socket = try await RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: try CurlClient())
            .webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")))
        try await socket.send("still here")
        #expect(try await socket.nextMessage() == .text("still here"))
        await socket.close()
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    @Test("open, send, read and close on the transport's executor; close from inside another call's interceptor")
    func lifecycleFromEveryContext() async throws {
        let transport = try CurlClient()
        let target = Locked<WebSocket?>(nil)
        let client = RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: transport,
            interceptors: [SocketClosingInterceptor(target: target)])
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/echo")
        try await Task(executorPreference: transport.executor) {
            let socket = try await client.webSocket(RestingRequest(endpoint: endpoint))
            try await socket.send("on the driver")
            var messages = socket.makeAsyncIterator()
            #expect(try await messages.next() == .text("on the driver"))
            await socket.close()
            #expect(socket.closure == WebSocketClosure(code: .normalClosure))
        }.value
        let socket = try await client.webSocket(RestingRequest(endpoint: endpoint))
        target.withLock { $0 = socket }
        // The next handshake's interceptor closes the first socket before its own call goes on.
        let second = try await client.webSocket(RestingRequest(endpoint: endpoint))
        #expect(socket.closure != nil)
        target.withLock { $0 = nil }
        await second.close()
    }

    /// Where a shutdown is awaited from.
    enum ShutdownContext: CaseIterable {
        /// The transport's driver threads (`CurlClient.executor`).
        case transportsExecutor
        /// The thread that reads the socket (`WebSocket.executor`), inside a loop that has just read a message.
        case socketsExecutor
    }

    @Test(
        "CurlClient.shutdown awaited on its own executor, or on the socket's, with a socket open returns, and the socket ends",
        arguments: ShutdownContext.allCases)
    func shutdownFromTheTransportsExecutor(_ context: ShutdownContext) async throws {
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
        let socket = try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")))
        switch context {
        case .transportsExecutor:
            await Task(executorPreference: transport.executor) {
                await transport.shutdown(gracePeriod: .milliseconds(10))
            }.value
        case .socketsExecutor:
            try await socket.send("before the shutdown")
            await Task(executorPreference: socket.executor) {
                let echoed = try? await socket.nextMessage()
                #expect(echoed == .text("before the shutdown"))
                await transport.shutdown(gracePeriod: .milliseconds(10))
            }.value
        }
        await #expect {
            for try await _ in socket {}
        } throws: { $0 is any CallFailure }
        #expect(transport.upgrades.count == 0)
    }

    @Test("a 101 that is not RFC 6455's closes the connection the transport handed over")
    func invalidHandshakeClosesTheConnection() async throws {
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
        await #expect { _ = try await open("/echo?accept=wrong", on: client) } throws: {
            ($0 as? WebSocketFailure)?.kind == .handshakeInvalid
        }
        #expect(transport.upgrades.count == 0)
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
        guard case .text(let json) = try await socket.nextMessage() else { throw RestingError.cancelled }
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
            #expect(try await socket.nextMessage() == .text("socket \(index)"))
            await socket.close()
        }
        #expect(transport.upgrades.count == 0)
    }

}
