import RestingCore

/// Where a WebSocket is in its life (RFC 6455 §7), each state with what it holds; the socket's runtime asks it
/// what to do at each event and does it outside its lock.
///
/// `open` → `closing` when this side sends its close frame (it then waits for the peer's) → `closed` with the
/// peer's close frame; `open` → `closed` directly when the peer closes first (this side answers with the same
/// code); either → `failed` on a protocol violation, a lost connection or a ping unanswered. `closed` and `failed`
/// are final. A cancelled socket (``/RestingCore/RestingClient/cancelAll()``, shutdown, a cancelled reader) closes the same way
/// and ends as `failed(.cancelled)`.
struct WebSocketLifecycle: Sendable {
    enum State: Sendable, Equatable {
        case open
        /// This side sent a close frame with `code` and waits for the peer's; `cancelling` when it closes because the
        /// socket was cancelled.
        case closing(sent: WebSocketCloseCode, cancelling: Bool)
        /// The close handshake is over: how the peer closed.
        case closed(WebSocketClosure)
        case failed(WebSocketError)
    }

    private(set) var state = State.open

    /// Whether messages may still be sent.
    var acceptsMessages: Bool { state == .open }

    /// Whether the socket is over.
    var isOver: Bool {
        switch state {
        case .open, .closing: false
        case .closed, .failed: true
        }
    }

    /// This side closes with `code` (`cancelling`: because the socket was cancelled): whether a close frame should go
    /// out now (only from `open`).
    mutating func closeRequested(code: WebSocketCloseCode, cancelling: Bool = false) -> Bool {
        guard state == .open else { return false }
        state = .closing(sent: code, cancelling: cancelling)
        return true
    }

    /// The peer's close frame arrived: the code to answer with, if this side has not sent its close yet (1000 for a
    /// close frame with no code, as RFC 6455 §5.5.1 lets the answer be).
    mutating func peerClosed(_ closure: WebSocketClosure) -> WebSocketCloseCode? {
        switch state {
        case .open:
            state = .closed(closure)
            return closure.code.isSendable ? closure.code : .normalClosure
        case .closing(_, let cancelling):
            state = cancelling ? .failed(.cancelled) : .closed(closure)
            return nil
        case .closed, .failed:
            return nil
        }
    }

    /// The connection ended with no close frame from the peer: after this side's close, the close is over (the peer
    /// had nothing to say); before it, the socket failed.
    mutating func connectionEnded() {
        switch state {
        case .open:
            state = .failed(
                .socket(WebSocketFailure(.connectionLost, "the connection ended without a close frame")))
        case .closing(_, let cancelling):
            state = cancelling ? .failed(.cancelled) : .closed(WebSocketClosure(code: .abnormalClosure))
        case .closed, .failed: break
        }
    }

    /// The socket failed with `error`: the close code to send first, if a close frame may still go out (a
    /// violation of the protocol by the peer; not a lost connection, nor a close already sent).
    mutating func failed(_ error: WebSocketError) -> WebSocketCloseCode? {
        let wasOpen = state == .open
        guard !isOver else { return nil }
        state = .failed(error)
        guard wasOpen, case .socket(let failure) = error else { return nil }
        return switch failure.kind {
        case .protocolViolation, .handshakeInvalid: .protocolError
        case .invalidText: .invalidFramePayloadData
        case .messageTooLarge: .messageTooBig
        case .pingTimeout, .connectionLost, .closed: nil
        }
    }
}
