import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingWebSocket
import Testing

/// A WebSocket's pings misused by its caller, on `CurlClient`, against the conformance kit's `websocket_server.py`.
@Suite("WebSocket pings misused", .timeLimit(.minutes(2)))
struct WebSocketPingHostileTests {
    static let server = Task { try await LocalServer.start(script: WebSocketTests.script) }
    static let transport = Result { try CurlClient() }

    func client(listener: EventRecorder? = nil) async throws -> RestingClient {
        RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try Self.transport.get(),
            eventListener: listener.map { .shared($0) })
    }

    /// `WebSocketFailure.Kind.closed` is documented as "A message was sent, or a read begun, after the WebSocket had
    /// closed", and the type's example has callers react to a kind (reconnect on `.pingTimeout`). A ping whose payload
    /// is over RFC 6455's 125 bytes is the caller's mistake on an open socket, yet `WebSocketSession.ping` throws it
    /// as `.closed`: a caller that reconnects on `.closed` tears down a healthy socket. (The relay engine throws
    /// `RestingError.unsupported` for its own ping limit, so the two engines disagree too.)
    @Test("a ping with an oversized payload is not reported as a closed socket; the socket stays open")
    func oversizedPingIsNotAClosedSocket() async throws {
        let client = try await client()
        let socket = try await client.openWebSocket("/echo?tag=oversized-ping")
        let outcome = await Result { try await socket.ping(Data(count: 126)) }
        guard case .failure(let error) = outcome else {
            Issue.record("a 126-byte ping payload was accepted")
            return
        }
        #expect(
            error as? RestingError
                == .encodingFailed(reason: "a ping's payload is at most 125 bytes (RFC 6455 §5.5)"),
            "an open socket's oversized ping was thrown as \(error)")
        try await socket.send("still open?")
        #expect(try await socket.nextMessage() == .text("still open?"))
        await socket.close()
    }
}
