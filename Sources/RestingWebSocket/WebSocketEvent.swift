import RestingCore

/// What a WebSocket reports in its call's event stream once its handshake succeeded, as a
/// ``/RestingCore/CapabilityEvent``: read them with `event.kind.capabilityEvent(as: WebSocketEvent.self)`. The call
/// ends, with its terminal event, when the socket closes.
///
/// ```swift
/// if case .messageReceived(_, let bytes) = event.kind.capabilityEvent(as: WebSocketEvent.self) {
///     received.record(bytes)
/// }
/// ```
public enum WebSocketEvent: CapabilityEvent {
    /// The handshake succeeded: the call is now the socket. `subprotocol` is the one the server chose.
    case opened(subprotocol: String?)
    /// A message of `bytes` arrived whole (`isText`: a text message).
    case messageReceived(isText: Bool, bytes: Int)
    /// A message of `bytes` was handed to the network.
    case messageSent(isText: Bool, bytes: Int)
    /// A control frame went out or came in (a ping, a pong), with its payload's size.
    case controlFrame(ControlFrame, bytes: Int)
    /// The close handshake began with `code`, sent by this side (`byPeer` false) or by the peer.
    case closing(code: UInt16, byPeer: Bool)

    /// A control frame, as ``controlFrame(_:bytes:)`` reports it.
    public enum ControlFrame: String, Sendable, Equatable {
        /// This side sent a ping (``WebSocket/ping(_:)``, or a keep-alive's).
        case pingSent
        /// The peer sent a ping (answered at once).
        case pingReceived
        /// This side answered a ping.
        case pongSent
        /// The peer answered a ping (or sent a pong of its own).
        case pongReceived
    }
}
