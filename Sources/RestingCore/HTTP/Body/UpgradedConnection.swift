#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A connection a transport handed over after a `101 Switching Protocols` answer (``HTTPRequest/upgrade``): the
/// bytes both ways, with no HTTP left on it. RestingKit speaks the new protocol (RFC 6455's frames) over it, so
/// that every transport that can hand one over gets the same WebSocket.
///
/// What a transport keeps:
/// - ``read(maximumLength:)`` reads the socket only when asked — a reader that does not ask stops the socket, and the
///   peer's TCP window closes: that is the back-pressure. It returns the bytes that came with the 101 first.
/// - ``write(_:)`` returns once every byte is handed to the network, waiting while the network is slow: a sender that
///   outpaces the network waits instead of queueing without bound. RestingKit calls it once at a time. Once begun it
///   does not stop for its task's cancellation — half a frame would break every message after it —; only
///   ``close()`` ends it.
/// - A read throws ``RestingError/cancelled`` when its task is cancelled; both throw
///   ``RestingError/transportFailed(_:)`` (`.connectionReset`) when the connection broke.
/// - ``close()`` closes the socket at once (a TLS close first, where there is one); reads and writes waiting then
///   fail, and so does every later one. Dropping the last reference closes it too.
public protocol UpgradedConnection: AnyObject, Sendable {
    /// The next bytes from the peer, at most `maximumLength` of them, waiting until some arrive; `nil` once the peer
    /// has closed its side.
    func read(maximumLength: Int) async throws -> Data?
    /// Writes every byte of `bytes`, waiting while the network cannot take them.
    func write(_ bytes: Data) async throws
    /// Closes the connection.
    func close()
    /// Registers what the protocol spoken over the connection does when its transport shuts down: a WebSocket
    /// sends its close frame (1001, going away) before the transport closes the connection, so that the peer sees
    /// a close, not a reset. The default keeps nothing: a transport that calls no handler closes at once.
    func onTransportShutdown(_ handler: @escaping @Sendable () async -> Void)
    /// Where the task that reads the connection should run: the transport's thread that sees the socket readable,
    /// which then runs the read with no hop to another thread. `nil` (the default): the global pool.
    var readingExecutor: (any TaskExecutor)? { get }
}

extension UpgradedConnection {
    /// Keeps nothing: the transport closes the connection at once when it shuts down.
    public func onTransportShutdown(_ handler: @escaping @Sendable () async -> Void) {}

    /// The global pool: the reading task runs where any task does.
    public var readingExecutor: (any TaskExecutor)? { nil }
}
