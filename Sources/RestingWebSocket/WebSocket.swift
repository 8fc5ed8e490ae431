import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An open WebSocket (RFC 6455): the messages the peer sends, as an async sequence, and the way to send yours.
///
/// Opened by ``RestingCore/RestingClient/webSocket(_:options:)`` from a request like any other — its handshake passes every
/// interceptor, the cookie jar, redirects and the credential boundary:
///
/// ```swift
/// let socket = try await client.webSocket(RestingRequest(endpoint: liveScores, pathVariables: ["match": 42]))
/// try await socket.send("subscribe")
/// for try await message in socket {
///     if case .text(let text) = message { print(text) }
/// }
/// print("closed by the server:", socket.closure?.code ?? .abnormalClosure)
/// ```
///
/// - **Reading.** The messages end (`nil`) when the peer closes, and ``closure`` says with which code and reason;
///   they throw a ``/RestingWebSocketCore/WebSocketFailure`` when the socket failed (a protocol violation, a lost connection,
///   an unanswered keep-alive ping) and ``/RestingCore/RestingError/cancelled`` when it was cancelled. Pings are answered, and
///   control frames never reach the reader (they are in the call's events). Messages wait for their reader up to
///   ``WebSocketOptions/receiveBufferSize`` bytes; past that the socket is not read until the reader catches up.
///   Several tasks may read: each message goes to one of them, in the order they asked.
/// - **Sending.** ``send(_:)-(WebSocketMessage)`` returns once the network has taken the message, and waits while it
///   cannot, so a fast sender cannot queue without bound; sends from several tasks go out whole, one after the other.
///   No wait is for ever: a send stuck on a peer that stopped reading ends with the socket, and every way of ending
///   the socket below ends within ``WebSocketOptions/closeTimeout``.
/// - **Closing.** ``close(code:reason:)`` runs the close handshake. Cancelling a reading task,
///   ``/RestingCore/RestingClient/cancelAll()``, ``/RestingCore/RestingClient/shutdown(gracePeriod:)`` and dropping the last reference close
///   the socket with 1001 (going away): a close frame, then the connection.
public final class WebSocket: Sendable {
    let engine: any WebSocketEngine

    /// A socket run by the engine `makeEngine` builds, counted among `registry`'s calls until it is over: its
    /// `onEnd` settles the entry, and ``/RestingCore/RestingClient/cancelAll()`` and shutdown reach it.
    init(registry: CallRegistry, makeEngine: (_ onEnd: @escaping @Sendable () -> Void) -> any WebSocketEngine) {
        let settle = Locked<UInt64?>(nil)
        let engine = makeEngine { if let id = settle.withLock({ $0 }) { registry.settle(id) } }
        self.engine = engine
        guard let id = registry.add(cancel: { engine.cancel() }) else {
            engine.cancel()
            return
        }
        settle.withLock { $0 = id }
        engine.start()
    }

    deinit { engine.cancel() }

    /// The executor whose thread reads the socket (`nil` where the transport has none): a receive loop that prefers
    /// it takes each message where it was read, with no other thread woken — the fastest way to answer messages one
    /// by one. Keep such a loop short between its awaits: while it runs, the transport's other sockets wait.
    ///
    /// ```swift
    /// let socket = try await client.webSocket(quotes)
    /// try await Task(executorPreference: socket.executor) {
    ///     for try await message in socket { try await socket.send(reply(to: message)) }
    /// }.value
    /// ```
    public var executor: (any TaskExecutor)? { engine.readingExecutor }

    /// Whether the server agreed to compress messages (permessage-deflate, ``WebSocketOptions/compression``).
    public var isCompressed: Bool { engine.isCompressed }

    /// The subprotocol the server chose among ``WebSocketOptions/subprotocols``; `nil` when it chose none.
    public var subprotocol: String? { engine.subprotocol }

    /// How the peer closed the socket, once the close handshake is over; `nil` before, and when it failed.
    public var closure: WebSocketClosure? {
        guard case .closed(let closure) = engine.lifecycle else { return nil }
        return closure
    }

    /// Sends `message` whole; returns once the network has taken it. Throws a ``/RestingWebSocketCore/WebSocketFailure``
    /// (`.closed`) once the socket is closing, and ``/RestingCore/RestingError/cancelled`` when the task is cancelled. A send
    /// waiting on a peer that stopped reading ends when the socket does (``close(code:reason:)`` after its close
    /// timeout, the keep-alive, ``/RestingCore/RestingClient/cancelAll()``, shutdown); cancelled once its message has begun to go
    /// out, it ends the socket too (as cancelled), since half a message would break every message after it.
    public func send(_ message: WebSocketMessage) async throws { try await engine.send(message) }

    /// Sends a text message.
    public func send(_ text: String) async throws { try await engine.send(.text(text)) }

    /// Sends a binary message.
    public func send(_ data: Data) async throws { try await engine.send(.binary(data)) }

    /// Sends a ping (at most 125 bytes of payload); the peer's pong is in the call's events.
    public func ping(_ payload: Data = Data()) async throws { try await engine.ping(payload) }

    /// Closes the socket: sends a close frame with `code` and `reason` (cut to 123 bytes of UTF-8), waits for the
    /// peer's close frame up to ``WebSocketOptions/closeTimeout``, then closes the connection. Messages that arrive
    /// meanwhile are dropped. Returns at once when the socket is already closed.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        await engine.close(code: code, reason: reason, cancelling: false)
    }
}

extension WebSocket: AsyncSequence {
    public typealias Element = WebSocketMessage
    public typealias Failure = any Error

    /// Reads the socket's messages; its task's cancellation closes the socket.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket

        public mutating func next() async throws -> WebSocketMessage? {
            do {
                return try await socket.engine.inbox.next()
            } catch RestingError.cancelled {
                socket.engine.cancel()
                throw RestingError.cancelled
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: self) }
}
