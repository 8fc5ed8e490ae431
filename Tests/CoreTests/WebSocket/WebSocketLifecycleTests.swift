import Testing

@testable import RestingCore
@testable import RestingWebSocket

/// The WebSocket's states and what each event does to them, without a socket.
@Suite("WebSocket lifecycle")
struct WebSocketLifecycleTests {
    @Test("this side closes first: a close frame goes out once; the peer's close ends it with the peer's code")
    func closingFirst() {
        var lifecycle = WebSocketLifecycle()
        let first = lifecycle.closeRequested(code: .normalClosure)
        let second = lifecycle.closeRequested(code: .goingAway)
        #expect(first && !second, "a second close sends nothing")
        #expect(!lifecycle.acceptsMessages)
        let answer = lifecycle.peerClosed(WebSocketClosure(code: .normalClosure, reason: "ok"))
        #expect(answer == nil, "no answer to an answer")
        #expect(lifecycle.state == .closed(WebSocketClosure(code: .normalClosure, reason: "ok")))
    }

    @Test("the peer closes first: this side answers with the same code (1000 for none) and is closed")
    func peerClosesFirst() {
        var lifecycle = WebSocketLifecycle()
        let answer = lifecycle.peerClosed(WebSocketClosure(code: WebSocketCloseCode(rawValue: 4000)))
        #expect(answer == WebSocketCloseCode(rawValue: 4000))
        #expect(lifecycle.isOver)
        var silent = WebSocketLifecycle()
        let silentAnswer = silent.peerClosed(WebSocketClosure(code: .noStatusReceived))
        #expect(silentAnswer == .normalClosure)
    }

    @Test("a connection that ends with no close frame fails an open socket, and completes a closing one")
    func connectionEnds() {
        var open = WebSocketLifecycle()
        open.connectionEnded()
        #expect(
            open.state
                == .failed(
                    .socket(WebSocketFailure(.connectionLost, "the connection ended without a close frame"))))
        var closing = WebSocketLifecycle()
        _ = closing.closeRequested(code: .normalClosure)
        closing.connectionEnded()
        #expect(closing.state == .closed(WebSocketClosure(code: .abnormalClosure)))
    }

    @Test("a cancelled socket closes like any other and ends cancelled, whatever the peer answers")
    func cancellation() {
        var answered = WebSocketLifecycle()
        _ = answered.closeRequested(code: .goingAway, cancelling: true)
        _ = answered.peerClosed(WebSocketClosure(code: .goingAway))
        #expect(answered.state == .failed(.cancelled))
        var dropped = WebSocketLifecycle()
        _ = dropped.closeRequested(code: .goingAway, cancelling: true)
        dropped.connectionEnded()
        #expect(dropped.state == .failed(.cancelled))
    }

    @Test("a failure sends the close code RFC 6455 gives it while the socket is open, and nothing after")
    func failures() {
        let cases: [(WebSocketFailure.Kind, WebSocketCloseCode?)] = [
            (.protocolViolation, .protocolError), (.invalidText, .invalidFramePayloadData),
            (.messageTooLarge, .messageTooBig), (.pingTimeout, nil), (.connectionLost, nil),
        ]
        for (kind, code) in cases {
            var lifecycle = WebSocketLifecycle()
            let sent = lifecycle.failed(.socket(WebSocketFailure(kind, "")))
            #expect(sent == code)
            #expect(lifecycle.isOver)
            let again = lifecycle.failed(.cancelled)
            #expect(again == nil, "final")
        }
        var closing = WebSocketLifecycle()
        _ = closing.closeRequested(code: .normalClosure)
        let sent = closing.failed(.socket(WebSocketFailure(.protocolViolation, "")))
        #expect(sent == nil, "a close already went out")
    }
}
