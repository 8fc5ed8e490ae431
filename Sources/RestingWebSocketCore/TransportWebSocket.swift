import RestingCore

/// A WebSocket its transport speaks itself — frames, pongs, the answer to the peer's close — handed up after the
/// `101` as the response body's `upgradedSession` (`ResponseBody(upgradedSession:)`) instead of an upgraded connection: what a transport returns when
/// its platform gives messages and never the bytes (URLSession's `URLSessionWebSocketTask`).
///
/// RestingKit runs everything above the messages as over its own framing — the reader's buffer, the keep-alive,
/// the lifecycle, the events, cancellation — so a `WebSocket` reads and closes the same whichever kind it sits on.
///
/// What a transport keeps:
/// - It checked the `101` itself (`Sec-WebSocket-Accept`, an extension it offered), answers pings, and answers the
///   peer's close frame.
/// - ``receive(maximumSize:)`` waits for the next whole message and asks for one only when called, so a reader that
///   does not call it stops the socket as far as the platform allows. It returns `nil` once the close handshake is
///   over — the peer's close frame, or the answer to this side's — with ``peerClosure`` set when the peer's frame
///   was seen. It throws a ``WebSocketFailure``: `.messageTooLarge` past `maximumSize`, `.connectionLost` when the
///   connection broke; `RestingError.cancelled` once cancelled.
/// - ``send(_:)`` returns once the platform has taken the message.
/// - ``ping()`` returns when the peer's pong arrives, and throws once the socket is over.
/// - ``close(code:reason:)`` sends a close frame; ``receive(maximumSize:)`` then ends once the peer answers.
///   `cancel()` closes the connection at once, ending every wait.
public protocol TransportWebSocket: UpgradedSession {
    /// The next message from the peer; `nil` once the close handshake is over.
    func receive(maximumSize: Int) async throws -> WebSocketMessage?
    /// Sends `message` whole.
    func send(_ message: WebSocketMessage) async throws
    /// Sends a ping (no payload); returns when its pong arrives.
    func ping() async throws
    /// Sends a close frame with `code` and `reason`.
    func close(code: WebSocketCloseCode, reason: String)
    /// The code and reason of the peer's close frame, once one arrived.
    var peerClosure: WebSocketClosure? { get }
}
