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
    /// 1009 and fails with ``WebSocketFailure/Kind/messageTooLarge``. 16 MiB by default.
    public var maximumMessageSize: Int
    /// How many bytes of received messages may wait unread: past that, the socket is not read until the reader
    /// catches up (the peer's TCP window closes). At least one message always fits. 1 MiB by default.
    public var receiveBufferSize: Int
    /// Pings sent to keep the connection alive and to find a dead peer; `nil` (the default, as OkHttp and
    /// URLSession) sends none.
    public var keepAlive: KeepAlive?
    /// How long ``WebSocket/close(code:reason:)`` waits for the peer's close frame before closing the connection
    /// anyway. 5 seconds by default.
    public var closeTimeout: Duration

    /// A ping every `interval`; a pong must answer each within `timeout`, or the socket fails with
    /// ``WebSocketFailure/Kind/pingTimeout``.
    public struct KeepAlive: Sendable, Equatable {
        public var interval: Duration
        public var timeout: Duration

        /// Pings every `interval`, each answered within `timeout`.
        public init(interval: Duration, timeout: Duration) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    /// Options with the defaults above.
    public init(
        subprotocols: [String] = [], maximumMessageSize: Int = 16 << 20, receiveBufferSize: Int = 1 << 20,
        keepAlive: KeepAlive? = nil, closeTimeout: Duration = .seconds(5)
    ) {
        self.subprotocols = subprotocols
        self.maximumMessageSize = max(1, maximumMessageSize)
        self.receiveBufferSize = max(1, receiveBufferSize)
        self.keepAlive = keepAlive
        self.closeTimeout = closeTimeout
    }
}
