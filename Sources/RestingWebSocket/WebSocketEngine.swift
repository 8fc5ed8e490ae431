import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What runs an open ``WebSocket``: ``WebSocketSession`` speaks RFC 6455's frames over an ``/RestingCore/UpgradedConnection``;
/// ``WebSocketRelay`` runs a ``/RestingWebSocketCore/TransportWebSocket`` whose transport speaks them. Both keep the same
/// ``WebSocketLifecycle``, inbox and events, so the user's handle cannot tell them apart.
protocol WebSocketEngine: AnyObject, Sendable {
    /// The lifecycle, inbox, events and end both engines keep the same way.
    var run: WebSocketRun { get }
    var options: WebSocketOptions { get }
    var subprotocol: String? { get }
    var isCompressed: Bool { get }
    /// Where the reading task runs (``/RestingCore/UpgradedConnection/readingExecutor``); `nil`, the global pool.
    var readingExecutor: (any TaskExecutor)? { get }
    /// Reads until the socket is over (run by ``start()``).
    func read() async
    /// Pings as `keepAlive` says until the socket is over (run by ``start()`` when the options ask for it).
    func keepAlive(_ keepAlive: WebSocketOptions.KeepAlive) async
    func send(_ message: WebSocketMessage) async throws
    func ping(_ payload: Data) async throws
    /// Closes with `code` and `reason` (`cancelling`: because the socket was cancelled), waiting at most
    /// ``WebSocketOptions/closeTimeout`` for the peer's answer. Returns at once when the socket is already over.
    func close(code: WebSocketCloseCode, reason: String, cancelling: Bool) async
}

extension WebSocketEngine {
    var inbox: WebSocketInbox { run.inbox }
    var events: CallEventReporter? { run.events }
    /// Where the socket is.
    var lifecycle: WebSocketLifecycle.State { run.lifecycle { $0.state } }

    /// Starts reading, and pinging if asked.
    func start() {
        events?.report(.capability(WebSocketEvent.opened(subprotocol: subprotocol)))
        let reader = Task(executorPreference: readingExecutor) { await self.read() }
        let keepAlive = options.keepAlive.map { keepAlive in Task { await self.keepAlive(keepAlive) } }
        run.ends(with: [reader, keepAlive])
    }

    /// Closes with 1001 without waiting (``/RestingCore/RestingClient/cancelAll()``, shutdown, a cancelled reader, a dropped
    /// handle); readers get ``/RestingCore/RestingError/cancelled``.
    func cancel() {
        inbox.finish(.failure(.cancelled))
        Task { await self.close(code: .goingAway, reason: "", cancelling: true) }
    }
}
