/// Asks the transport to keep the connection past a `101 Switching Protocols` answer and hand it up as the
/// response's body, an ``UpgradedConnection``, instead of ending the exchange.
///
/// Set on ``HTTPRequest/upgrade`` by ``RestingClient`` for a WebSocket handshake (`RestingClient.webSocket(_:)`),
/// together with the handshake's `Upgrade`, `Connection` and `Sec-WebSocket-*` fields; interceptors see it and the
/// fields like those of any request. A transport that can upgrade sends the request over HTTP/1.1 on a connection of
/// its own (never a pooled or multiplexed one) and, on a 101, returns the response with
/// ``ResponseBody/upgradedConnection`` holding that connection; any other status is an ordinary response, its body
/// read whole. A transport whose platform speaks WebSocket itself and hands over messages rather than bytes returns
/// ``ResponseBody/upgradedSession`` instead (`TransportWebSocket`, in RestingWebSocketCore). A transport that can do neither fails the
/// call with ``RestingError/unsupported(feature:transport:)``.
public struct ConnectionUpgrade: Sendable, Equatable {
    /// The protocol asked for in the `Upgrade` field.
    public var protocolName: String

    /// An upgrade to `protocolName`.
    public init(_ protocolName: String) { self.protocolName = protocolName }

    /// RFC 6455's `websocket`.
    public static let webSocket = ConnectionUpgrade("websocket")
}
