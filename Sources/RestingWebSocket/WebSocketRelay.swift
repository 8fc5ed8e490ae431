import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What runs a WebSocket whose transport speaks the protocol itself (a ``/RestingWebSocketCore/TransportWebSocket``): the loop that takes
/// its messages into the inbox (and stops asking while the inbox is full), sends, the keep-alive pings and the
/// close, on the same ``WebSocketRun`` as ``WebSocketSession``. Frames, pongs and the answer to the peer's close are
/// the transport's.
final class WebSocketRelay: WebSocketEngine {
    let socket: any TransportWebSocket
    let options: WebSocketOptions
    let subprotocol: String?
    let isCompressed: Bool
    /// The transport reads its own socket: the reading task only relays, on the global pool.
    var readingExecutor: (any TaskExecutor)? { nil }
    let run: WebSocketRun

    init(
        socket: any TransportWebSocket, options: WebSocketOptions, subprotocol: String?, isCompressed: Bool,
        events: CallEventReporter?, onEnd: @escaping @Sendable () -> Void
    ) {
        self.socket = socket
        self.options = options
        self.subprotocol = subprotocol
        self.isCompressed = isCompressed
        run = WebSocketRun(
            inbox: WebSocketInbox(capacity: options.receiveBufferSize), events: events,
            release: { socket.cancel() }, onEnd: onEnd)
    }

    // MARK: Sending

    func send(_ message: WebSocketMessage) async throws {
        guard run.acceptsMessages else { throw WebSocketError.closed.thrown }
        if Task.isCancelled { throw RestingError.cancelled }
        do {
            try await socket.send(message)
        } catch {
            let error = WebSocketError(error)
            fail(error)
            throw error.thrown
        }
        events?.report(.capability(WebSocketEvent.messageSent(isText: message.isText, bytes: message.byteCount)))
    }

    /// Sends a ping and returns; its pong is reported when it comes. The transports that speak WebSocket themselves
    /// send pings without a payload.
    func ping(_ payload: Data) async throws {
        guard payload.isEmpty else {
            throw RestingError.unsupported(feature: "a ping with a payload", transport: "this transport's WebSocket")
        }
        guard run.acceptsMessages else { throw WebSocketError.closed.thrown }
        Task { _ = await self.pingAnswered() }
    }

    /// Pings, and reports the pong; `false` when the socket ended first.
    private func pingAnswered() async -> Bool {
        events?.report(.capability(WebSocketEvent.controlFrame(.pingSent, bytes: 0)))
        guard (try? await socket.ping()) != nil else { return false }
        events?.report(.capability(WebSocketEvent.controlFrame(.pongReceived, bytes: 0)))
        return true
    }

    // MARK: Closing

    func close(code: WebSocketCloseCode, reason: String, cancelling: Bool) async {
        guard run.lifecycle({ $0.closeRequested(code: code, cancelling: cancelling) }) else {
            return await run.waitUntilOver()
        }
        events?.report(.capability(WebSocketEvent.closing(code: code.rawValue, byPeer: false)))
        await run.closeHandshake(within: options.closeTimeout) { self.socket.close(code: code, reason: reason) }
    }

    /// The socket failed with `error`; the transport's socket is released (a transport that speaks the protocol
    /// sends the close frame a violation calls for itself).
    private func fail(_ error: WebSocketError) {
        _ = run.lifecycle { $0.failed(error) }
        run.over(connectionEnded: false)
    }

    // MARK: Reading

    /// Takes messages until the close handshake is over or the socket fails.
    func read() async {
        do {
            while let message = try await socket.receive(maximumSize: options.maximumMessageSize) {
                events?.report(
                    .capability(WebSocketEvent.messageReceived(isText: message.isText, bytes: message.byteCount)))
                // After this side's close the peer may still send; nobody waits for it.
                guard run.acceptsMessages else { continue }
                guard await inbox.put(message) else { return }
            }
            guard let closure = socket.peerClosure else { return run.over(connectionEnded: true) }
            // From `open` the peer closed first (the transport answered it); from `closing` it answered this side.
            if run.lifecycle({ $0.peerClosed(closure) }) != nil {
                events?.report(.capability(WebSocketEvent.closing(code: closure.code.rawValue, byPeer: true)))
            }
            run.over(connectionEnded: false)
        } catch {
            guard !run.isOver else { return run.over(connectionEnded: false) }
            let error = WebSocketError(error)
            if error == .cancelled { return run.over(connectionEnded: true) }
            fail(error)
        }
    }

    /// Pings every interval and fails the socket when a pong does not come within the timeout.
    func keepAlive(_ keepAlive: WebSocketOptions.KeepAlive) async {
        while (try? await Task.sleep(forAnyDuration: keepAlive.interval)) != nil {
            enum Outcome { case answered, ended, timedOut }
            // The ping is not cancellable: it waits in a task of its own, raced against the timeout, and ends with the
            // socket at the latest.
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let pending = Locked<CheckedContinuation<Outcome, Never>?>(continuation)
                let resume = { @Sendable (outcome: Outcome) in
                    pending.withLock { pending in
                        defer { pending = nil }
                        return pending
                    }?.resume(returning: outcome)
                }
                let timer = Task {
                    try? await Task.sleep(forAnyDuration: keepAlive.timeout)
                    resume(.timedOut)
                }
                Task {
                    resume(await self.pingAnswered() ? .answered : .ended)
                    timer.cancel()
                }
            }
            switch outcome {
            case .answered: continue
            case .ended: return
            case .timedOut:
                return fail(.socket(WebSocketFailure(.pingTimeout, "no pong within \(keepAlive.timeout)")))
            }
        }
    }

}
