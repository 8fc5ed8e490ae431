import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore
@testable import RestingWebSocket

/// A WebSocket whose transport speaks the protocol itself (a ``TransportWebSocket``, as URLSession's), without a
/// socket: a scripted transport socket under a real `RestingClient`, so the relay's reading, closing, keep-alive and
/// events are checked on every platform — not only where a URLSession speaks WebSocket.
@Suite("WebSocket over a transport's own WebSocket", .timeLimit(.minutes(5)))
struct WebSocketRelayTests {
    /// A transport's socket that the test drives: what it receives is what the test delivers, its close is
    /// answered by the peer with the same code unless told otherwise, and pings are answered unless `answersPings`
    /// is off.
    final class ScriptedSocket: TransportWebSocket {
        private struct State {
            var incoming: [Result<WebSocketMessage?, any Error>] = []
            var receiver: CheckedContinuation<WebSocketMessage?, any Error>?
            var sent: [WebSocketMessage] = []
            var closeSent: WebSocketClosure?
            var peerClosure: WebSocketClosure?
            var cancelled = false
            /// Pings no pong will answer, failed when the socket is cancelled.
            var unansweredPings: [CheckedContinuation<Void, any Error>] = []
        }
        private let state = Locked(State())
        let answersPings: Bool
        let answersClose: Bool

        init(answersPings: Bool = true, answersClose: Bool = true) {
            self.answersPings = answersPings
            self.answersClose = answersClose
        }

        /// The peer sends `message`; `nil` closes with `closure`.
        func deliver(_ next: Result<WebSocketMessage?, any Error>, closure: WebSocketClosure? = nil) {
            let receiver = state.withLock { state in
                if let closure { state.peerClosure = closure }
                guard let receiver = state.receiver else {
                    state.incoming.append(next)
                    return CheckedContinuation<WebSocketMessage?, any Error>?.none
                }
                state.receiver = nil
                return receiver
            }
            receiver?.resume(with: next)
        }

        var sent: [WebSocketMessage] { state.withLock { $0.sent } }
        var closeSent: WebSocketClosure? { state.withLock { $0.closeSent } }
        var wasCancelled: Bool { state.withLock { $0.cancelled } }

        func receive(maximumSize: Int) async throws -> WebSocketMessage? {
            try await withCheckedThrowingContinuation { continuation in
                let next = state.withLock { state -> Result<WebSocketMessage?, any Error>? in
                    if state.cancelled { return .failure(RestingError.cancelled) }
                    guard state.incoming.isEmpty else { return state.incoming.removeFirst() }
                    state.receiver = continuation
                    return nil
                }
                if let next { continuation.resume(with: next) }
            }
        }

        func send(_ message: WebSocketMessage) async throws {
            state.withLock { $0.sent.append(message) }
            deliver(.success(message))  // the peer echoes
        }

        func ping() async throws {
            guard answersPings else {
                try await withCheckedThrowingContinuation { continuation in
                    let cancelled = state.withLock { state in
                        if !state.cancelled { state.unansweredPings.append(continuation) }
                        return state.cancelled
                    }
                    if cancelled { continuation.resume(throwing: RestingError.cancelled) }
                }
                return
            }
        }

        func close(code: WebSocketCloseCode, reason: String) {
            state.withLock { $0.closeSent = WebSocketClosure(code: code, reason: reason) }
            if answersClose { deliver(.success(nil), closure: WebSocketClosure(code: code)) }
        }

        var peerClosure: WebSocketClosure? { state.withLock { $0.peerClosure } }

        func cancel() {
            let (receiver, pings) = state.withLock { state in
                state.cancelled = true
                defer {
                    state.receiver = nil
                    state.unansweredPings = []
                }
                return (state.receiver, state.unansweredPings)
            }
            receiver?.resume(throwing: RestingError.cancelled)
            for ping in pings { ping.resume(throwing: RestingError.cancelled) }
        }
    }

    /// A transport whose every handshake is answered `101` with `headers` and `socket`, and any other request `204`.
    struct SpeakingTransport: HTTPClient {
        let socket: ScriptedSocket
        var headers: HTTPHeaderFields = [:]
        func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
            guard request.upgrade == .webSocket else { return HTTPDataResponse(status: 204, url: request.url) }
            return HTTPDataResponse(
                status: 101, headers: headers, body: ResponseBody(upgradedSession: socket), url: request.url)
        }
    }

    func open(
        _ socket: ScriptedSocket, headers: HTTPHeaderFields = [:], options: WebSocketOptions = WebSocketOptions(),
        recorder: EventRecorder? = nil
    ) async throws -> (RestingClient, WebSocket) {
        let client = RestingClient(
            baseUrl: "https://live.example.com", httpClient: SpeakingTransport(socket: socket, headers: headers),
            eventListener: recorder.map { .shared($0) })
        let webSocket = try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/rooms/1")), options: options)
        return (client, webSocket)
    }

    @Test("messages go both ways; the peer's close ends them with its closure, and one terminal event")
    func messagesAndThePeersClose() async throws {
        let recorder = EventRecorder()
        let scripted = ScriptedSocket()
        let (_, socket) = try await open(
            scripted, headers: ["Sec-WebSocket-Extensions": "permessage-deflate"], recorder: recorder)
        #expect(socket.isCompressed)
        try await socket.send("hello")
        try await socket.send(Data([1, 2, 3]))
        var messages = socket.makeAsyncIterator()
        #expect(try await messages.next() == .text("hello"))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        scripted.deliver(.success(nil), closure: WebSocketClosure(code: .goingAway, reason: "bye"))
        #expect(try await messages.next() == nil)
        #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "bye"))
        await #expect(throws: WebSocketFailure(.closed, "the WebSocket is closing or closed")) {
            try await socket.send("late")
        }
        // The peer echoes inside the send, so a message's receipt and its send may be reported in either order.
        let socketEvents = Array(recorder.kinds.drop { $0 != .capability(WebSocketEvent.opened(subprotocol: nil)) })
        #expect(socketEvents.count == 7)
        #expect(
            Set(socketEvents.dropFirst().dropLast(2).map { "\($0)" })
                == Set(
                    [
                        CallEvent.Kind.capability(WebSocketEvent.messageSent(isText: true, bytes: 5)),
                        .capability(WebSocketEvent.messageReceived(isText: true, bytes: 5)),
                        .capability(WebSocketEvent.messageSent(isText: false, bytes: 3)),
                        .capability(WebSocketEvent.messageReceived(isText: false, bytes: 3)),
                    ].map { "\($0)" }))
        #expect(
            socketEvents.suffix(2) == [
                .capability(WebSocketEvent.closing(code: 1001, byPeer: true)), .callEnded(status: 101),
            ])
    }

    @Test("this side's close goes to the transport with its code and reason, and ends with the peer's answer")
    func closingFromThisSide() async throws {
        let scripted = ScriptedSocket()
        let (_, socket) = try await open(scripted)
        await socket.close(code: WebSocketCloseCode(rawValue: 4321), reason: "done")
        #expect(scripted.closeSent == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4321), reason: "done"))
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4321)))
        #expect(scripted.wasCancelled, "the transport's socket is released")
    }

    @Test("a peer that never answers the close is given closeTimeout, then the socket ends as 1006")
    func unansweredClose() async throws {
        let scripted = ScriptedSocket(answersClose: false)
        let (_, socket) = try await open(scripted, options: WebSocketOptions(closeTimeout: .milliseconds(50)))
        await socket.close()
        #expect(socket.closure == WebSocketClosure(code: .abnormalClosure))
        #expect(scripted.wasCancelled)
    }

    @Test("cancelAll() closes with 1001: the reader gets .cancelled, and the call ends with one cancelled event")
    func cancelAll() async throws {
        let recorder = EventRecorder()
        let scripted = ScriptedSocket()
        let (client, socket) = try await open(scripted, recorder: recorder)
        let reader = Task { for try await _ in socket {} }
        client.cancelAll()
        await #expect(throws: RestingError.cancelled) { try await reader.value }
        #expect(scripted.closeSent?.code == .goingAway)
        await socket.close()  // returns once the socket is over
        #expect(recorder.kinds.filter { $0 == .callCancelled }.count == 1, "\(recorder.kinds)")
        #expect(!recorder.kinds.contains(.callEnded(status: 101)))
    }

    @Test("a broken connection fails the reader typed; the transport's socket is released")
    func brokenConnection() async throws {
        let scripted = ScriptedSocket()
        let (_, socket) = try await open(scripted)
        let lost = WebSocketFailure(.connectionLost, "reset")
        scripted.deliver(.failure(lost))
        await #expect(throws: lost) {
            for try await _ in socket {}
        }
        #expect(scripted.wasCancelled)
    }

    @Test("a keep-alive ping left unanswered fails the socket with pingTimeout")
    func keepAliveTimeout() async throws {
        let scripted = ScriptedSocket(answersPings: false)
        let options = WebSocketOptions(keepAlive: .init(interval: .milliseconds(10), timeout: .milliseconds(50)))
        let (_, socket) = try await open(scripted, options: options)
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard let failure = error as? WebSocketFailure else { return false }
            return failure.kind == .pingTimeout
        }
    }

    @Test("a ping's pong is in the events; a ping with a payload is refused typed, as the transport has none")
    func pings() async throws {
        let recorder = EventRecorder()
        let (_, socket) = try await open(ScriptedSocket(), recorder: recorder)
        try await socket.ping()
        await #expect(
            throws: RestingError.unsupported(feature: "a ping with a payload", transport: "this transport's WebSocket")
        ) {
            try await socket.ping(Data([1]))
        }
        while !recorder.kinds.contains(.capability(WebSocketEvent.controlFrame(.pongReceived, bytes: 0))) {
            await Task.yield()
        }
        #expect(recorder.kinds.contains(.capability(WebSocketEvent.controlFrame(.pingSent, bytes: 0))))
        await socket.close()
    }

    @Test("a subprotocol the client did not offer fails the handshake and releases the transport's socket")
    func unofferedSubprotocol() async throws {
        let scripted = ScriptedSocket()
        await #expect(
            throws: WebSocketFailure(.handshakeInvalid, "the server chose a subprotocol that was not offered")
        ) {
            _ = try await open(
                scripted, headers: ["Sec-WebSocket-Protocol": "chat.v9"],
                options: WebSocketOptions(subprotocols: ["chat.v2"]))
        }
        #expect(scripted.wasCancelled)
        let (_, chosen) = try await open(
            ScriptedSocket(), headers: ["Sec-WebSocket-Protocol": "chat.v2"],
            options: WebSocketOptions(subprotocols: ["chat.v2"]))
        #expect(chosen.subprotocol == "chat.v2")
        await chosen.close()
    }

    @Test("a socket closed from inside another call's interceptor closes, and that call goes on")
    func closedFromInsideACall() async throws {
        let scripted = ScriptedSocket()
        let target = Locked<WebSocket?>(nil)
        let client = RestingClient(
            baseUrl: "https://live.example.com", httpClient: SpeakingTransport(socket: scripted),
            interceptors: [SocketClosingInterceptor(target: target)])
        let socket = try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/rooms/1")))
        target.withLock { $0 = socket }
        let answer = try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/status")))
        #expect(answer.status == 204)
        #expect(scripted.closeSent == WebSocketClosure(code: .goingAway, reason: "kill switch"))
        #expect(socket.closure == WebSocketClosure(code: .goingAway))
        target.withLock { $0 = nil }
    }
}
