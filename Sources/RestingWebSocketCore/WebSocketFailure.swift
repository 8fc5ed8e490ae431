import RestingCore

/// Why a WebSocket failed: the error its handshake, its reads and its sends throw.
///
/// A WebSocket that ends with the peer's close frame has not failed, whatever the close code: its messages simply
/// end, and the socket's `closure` says what the peer sent. These are the other ways a WebSocket ends, each with
/// the close code RFC 6455 gives it where the client sends one.
///
/// ```swift
/// catch let failure as WebSocketFailure where failure.kind == .pingTimeout {
///     // the peer went silent: reconnect
/// }
/// ```
public struct WebSocketFailure: CallFailure, Equatable {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// The server answered `101` but did not complete RFC 6455's handshake (a wrong `Sec-WebSocket-Accept`, a
        /// subprotocol or an extension that was not offered, a missing `Upgrade: websocket`).
        case handshakeInvalid
        /// The peer broke RFC 6455: a masked frame, a reserved bit or opcode, a fragmented or oversized control
        /// frame, a continuation with nothing to continue, an invalid close frame. The client closed with 1002.
        case protocolViolation
        /// A text message or a close reason that is not UTF-8. The client closed with 1007.
        case invalidText
        /// A frame or a message larger than the socket's limit (`WebSocketOptions.maximumMessageSize`). The client
        /// closed with 1009.
        case messageTooLarge
        /// No pong answered the keep-alive ping in time: the peer or the path to it is gone.
        case pingTimeout
        /// The connection ended without a close frame (RFC 6455's 1006).
        case connectionLost
        /// A message was sent, or a read begun, after the WebSocket had closed.
        case closed
    }

    /// What went wrong.
    public var kind: Kind
    /// Details for a person: which rule, which limit. Never a message's content.
    public var detail: String

    /// A failure of `kind`, explained by `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "WebSocket \(kind.rawValue): \(detail)" }

    /// `webSocketFailed`, whatever the kind: what logs, metrics and spans group these failures by.
    public var errorType: String { "webSocketFailed" }
}
