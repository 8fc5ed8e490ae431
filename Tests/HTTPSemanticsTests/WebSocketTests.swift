import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTesting
import RestingTestSupport
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
        return try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)), options: options)
    }

    /// What the server saw of connection `tag`; waits until it has sent at least `sent` messages.
    func stats(_ tag: String, sent: Int = 0) async throws -> Stats {
        let url = try #require(URL(string: "\(try await Self.server.value.baseURL)/stats?tag=\(tag)&at_least=\(sent)"))
        let response = try await Self.transport.get().send(HTTPRequest(method: .get, url: url), progress: { _ in })
        return try JSONDecoder().decode(Stats.self, from: try await response.body.collect(upTo: 1 << 16))
    }

    /// Reads the next message, failing the test when there is none.
    func next(_ socket: WebSocket) async throws -> WebSocketMessage {
        var iterator = socket.makeAsyncIterator()
        return try #require(try await iterator.next())
    }

    @Test("text and binary messages from 0 bytes to 1 MiB come back whole, across every length encoding")
    func echo() async throws {
        let socket = try await open("/echo")
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
}
