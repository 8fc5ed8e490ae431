import RestingCore

/// How a WebSocket is opened and kept: subprotocols, limits, keep-alive and the close handshake's patience.
///
/// ```swift
/// var options = WebSocketOptions(subprotocols: ["chat.v2"])
/// options.keepAlive = .init(interval: .seconds(20), timeout: .seconds(10))
/// let socket = try await client.webSocket(RestingRequest(endpoint: chat), options: options)
/// ```
public struct WebSocketOptions: Sendable, Equatable {
    /// Subprotocols offered in `Sec-WebSocket-Protocol`, preferred first; the server picks one or none
    /// (`WebSocket.subprotocol`). A server that picks one not offered fails the handshake.
    public var subprotocols: [String]
    /// The largest message (all its fragments together) accepted from the peer: past it the socket closes with
    /// 1009 and fails with ``/RestingWebSocketCore/WebSocketFailure/Kind/messageTooLarge``. 16 MiB by default.
    public var maximumMessageSize: Int
    /// How many bytes of received messages may wait unread: past that, the socket is not read until the reader
    /// catches up (the peer's TCP window closes). At least one message always fits. 1 MiB by default.
    public var receiveBufferSize: Int
    /// Pings sent to keep the connection alive and to find a dead peer; `nil` (the default, as OkHttp and
    /// URLSession) sends none.
    public var keepAlive: KeepAlive?
    /// permessage-deflate (RFC 7692), offered in the handshake; `nil` offers none. On by default, as in OkHttp and
    /// URLSession: the server decides, and a server that declines sends and receives messages as they are.
    public var compression: Compression?
    /// How long ``WebSocket/close(code:reason:)`` waits for the peer's close frame before closing the connection
    /// anyway. 5 seconds by default.
    public var closeTimeout: Duration

    /// A ping every `interval`; a pong must answer each within `timeout`, or the socket fails with
    /// ``/RestingWebSocketCore/WebSocketFailure/Kind/pingTimeout``.
    public struct KeepAlive: Sendable, Equatable {
        /// How often a ping goes out (none while the last is unanswered).
        public var interval: Duration
        /// How long a pong may take.
        public var timeout: Duration

        /// Pings every `interval`, each answered within `timeout`.
        public init(interval: Duration, timeout: Duration) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    /// How messages are compressed once a server agrees to permessage-deflate.
    public struct Compression: Sendable, Equatable {
        /// Messages smaller than this go out as they are (deflating a few bytes costs more than it saves). 1 KiB
        /// by default, as OkHttp.
        public var minimumSize: Int
        /// Asks both sides to compress each message alone (`client_no_context_takeover`,
        /// `server_no_context_takeover`): a worse ratio, and no compression context kept between messages.
        public var noContextTakeover: Bool

        /// Compression of messages from `minimumSize` bytes, with contexts kept unless `noContextTakeover`.
        public init(minimumSize: Int = 1024, noContextTakeover: Bool = false) {
            self.minimumSize = max(0, minimumSize)
            self.noContextTakeover = noContextTakeover
        }
    }

    /// Options with the defaults above.
    public init(
        subprotocols: [String] = [], maximumMessageSize: Int = 16 << 20, receiveBufferSize: Int = 1 << 20,
        keepAlive: KeepAlive? = nil, compression: Compression? = Compression(), closeTimeout: Duration = .seconds(5)
    ) {
        self.subprotocols = subprotocols
        self.maximumMessageSize = max(1, maximumMessageSize)
        self.receiveBufferSize = max(1, receiveBufferSize)
        self.keepAlive = keepAlive
        self.compression = compression
        self.closeTimeout = closeTimeout
    }
}
