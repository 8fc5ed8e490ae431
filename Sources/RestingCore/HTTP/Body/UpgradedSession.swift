/// What a transport hands over after a `101 Switching Protocols` when its platform speaks the upgraded protocol
/// itself and gives messages rather than bytes (URLSession's WebSocket task): carried as
/// ``ResponseBody/upgradedSession`` to the capability that asked for the upgrade, which knows its protocol
/// (`TransportWebSocket`, in RestingWebSocketCore, refines this one).
///
/// The core only ends it: ``ResponseBody/cancel()`` calls ``cancel()`` when a response is discarded.
public protocol UpgradedSession: AnyObject, Sendable {
    /// Closes the session at once, ending every wait on it.
    func cancel()
}
