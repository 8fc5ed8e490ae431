import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What runs a WebSocket after its handshake: the loop that reads frames (answering pings, keeping messages in the
/// inbox, stopping when the inbox is full), the writes through one gate, the keep-alive pings, and the close — one
/// ``WebSocketLifecycle`` deciding each step. ``WebSocket`` is the user's handle to it; the session outlives a
/// dropped handle only as long as its close takes.
final class WebSocketSession: WebSocketEngine {
    let connection: any UpgradedConnection
    let options: WebSocketOptions
    let subprotocol: String?
    /// permessage-deflate, as agreed.
    let deflate: PerMessageDeflate?
    let run: WebSocketRun
    private let gate = WebSocketSendGate()

    private struct State {
        /// Compresses messages sent, once one is (permessage-deflate).
        var deflater: MessageDeflater?
        /// The keys of the frames to send, drawn a batch at a time.
        var maskingKeys = MaskingKeys()
        /// Since when the keep-alive has waited for the peer: its last ping's send, or the last bytes heard after it.
        var awaitingPongSince: ContinuousClock.Instant?
        /// Since when the reading loop has waited for the socket (with a keep-alive); `nil` while it does something
        /// else — waits for room in the inbox, answers a ping — and cannot hear the peer.
        var listeningSince: ContinuousClock.Instant?
    }

    private let state = Locked(State())

    init(
        connection: any UpgradedConnection, options: WebSocketOptions, subprotocol: String?,
        deflate: PerMessageDeflate?, events: CallEventReporter?, onEnd: @escaping @Sendable () -> Void
    ) {
        self.connection = connection
        self.options = options
        self.subprotocol = subprotocol
        self.deflate = deflate
        run = WebSocketRun(
            inbox: WebSocketInbox(capacity: options.receiveBufferSize), events: events,
            release: { connection.close() }, onEnd: onEnd)
        // The transport's shutdown: a close frame (1001) within the close timeout, not a reset.
        connection.onTransportShutdown { [weak self] in
            await self?.close(code: .goingAway, reason: "", cancelling: true)
        }
    }

    var isCompressed: Bool { deflate != nil }

    var readingExecutor: (any TaskExecutor)? { connection.readingExecutor }

    // MARK: Sending

    /// Sends `message` whole, in one frame; returns once the network has it.
    func send(_ message: WebSocketMessage) async throws {
        let (opcode, payload): (WebSocketFrame.Opcode, Data) =
            switch message {
            case .text(let text): (.text, Data(text.utf8))
            case .binary(let data): (.binary, data)
            }
        let compresses = deflate != nil && payload.count >= (options.compression?.minimumSize ?? .max)
        try await write(
            WebSocketFrame(isFinal: true, opcode: opcode, payload: payload), onlyWhileOpen: true,
            compressing: compresses)
        events?.report(.capability(WebSocketEvent.messageSent(isText: message.isText, bytes: payload.count)))
    }

    /// Sends a ping with `payload` (at most 125 bytes).
    func ping(_ payload: Data) async throws {
        guard payload.count <= WebSocketFrame.maximumControlPayload else {
            throw RestingError.encodingFailed(reason: "a ping's payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        try await write(WebSocketFrame(isFinal: true, opcode: .ping, payload: payload), onlyWhileOpen: true)
        events?.report(.capability(WebSocketEvent.controlFrame(.pingSent, bytes: payload.count)))
    }

    /// Writes `frame` when its turn comes. A write the network cannot take waits for it, but never for ever: the
    /// socket's close timeout, its keep-alive, shutdown and cancellation each close the connection, which ends the
    /// write. Cancelling the writing task while its frame is going out does that too — half a frame would break the
    /// stream for every message after it, so the socket ends as cancelled.
    private func write(_ frame: WebSocketFrame, onlyWhileOpen: Bool, compressing: Bool = false) async throws {
        try await gate.enter()
        defer { gate.leave() }
        if onlyWhileOpen, !run.acceptsMessages {
            throw WebSocketError.closed.thrown
        }
        var frame = frame
        // Compressed in the gate's turn: the deflater's context follows the order messages go out in.
        if compressing, let compressed = deflater()?.compress(frame.payload) {
            frame.payload = compressed
            frame.isCompressed = true
        }
        let bytes = frame.encoded(maskingKey: state.withLock { $0.maskingKeys.next() })
        if Task.isCancelled { throw RestingError.cancelled }
        do {
            try await withTaskCancellationHandler {
                try await connection.write(bytes)
            } onCancel: {
                self.fail(.cancelled)
            }
        } catch {
            let error = Task.isCancelled ? WebSocketError.cancelled : WebSocketError(error)
            fail(error)
            throw error.thrown
        }
    }

    /// The deflater, made at the first compressed message; only called in the send gate's turn.
    private func deflater() -> MessageDeflater? {
        state.withLock { state in
            if state.deflater == nil, let deflate {
                state.deflater = MessageDeflater(resetsEachMessage: deflate.clientNoContextTakeover)
            }
            return state.deflater
        }
    }

    // MARK: Closing

    /// Closes with `code` and `reason`: sends the close frame and waits for the peer's, both within
    /// ``WebSocketOptions/closeTimeout`` (a write stuck on a peer that stopped reading included), then closes the
    /// connection. Returns at once when the socket is already over.
    func close(code: WebSocketCloseCode, reason: String, cancelling: Bool) async {
        guard run.lifecycle({ $0.closeRequested(code: code, cancelling: cancelling) }) else {
            return await run.waitUntilOver()
        }
        events?.report(.capability(WebSocketEvent.closing(code: code.rawValue, byPeer: false)))
        let payload = WebSocketMessageAssembler.closePayload(code: code, reason: reason)
        await run.closeHandshake(within: options.closeTimeout) {
            try? await self.write(WebSocketFrame(isFinal: true, opcode: .close, payload: payload), onlyWhileOpen: false)
        }
    }

    /// The socket failed with `error`: a close frame with its code where one may still go out, then the
    /// connection closes.
    private func fail(_ error: WebSocketError) {
        guard let code = run.lifecycle({ $0.failed(error) }) else { return run.over(connectionEnded: false) }
        events?.report(.capability(WebSocketEvent.closing(code: code.rawValue, byPeer: false)))
        Task {
            await self.writeCloseFrame(code: code)
            self.run.over(connectionEnded: false)
        }
    }

    /// Writes a close frame with `code`, best effort and within ``WebSocketOptions/closeTimeout``: the peer that broke
    /// the protocol, or closed first, may not be reading. Past it the connection closes, which ends the write.
    private func writeCloseFrame(code: WebSocketCloseCode) async {
        let payload = WebSocketMessageAssembler.closePayload(code: code, reason: "")
        let timeout = Task { [connection, closeTimeout = options.closeTimeout] in
            try? await Task.sleep(forAnyDuration: closeTimeout)
            if !Task.isCancelled { connection.close() }
        }
        try? await write(WebSocketFrame(isFinal: true, opcode: .close, payload: payload), onlyWhileOpen: false)
        timeout.cancel()
    }

    // MARK: Reading

    /// The most one read of the connection takes.
    private static let readSize = 64 * 1024
    /// The reads and frames the reading loop handles before it lets its thread go, when none made it wait.
    private static let turn = 256

    /// Yields the thread once `work` has reached a turn, and starts the next.
    private func pace(_ work: inout Int) async {
        guard work >= Self.turn else { return }
        work = 0
        await Task.yield()
    }

    /// Reads frames until the socket is over.
    func read() async {
        // A compressed frame of incompressible bytes is a little larger than the message it holds.
        let compressedSlack = deflate == nil ? 0 : options.maximumMessageSize / 128 + 1024
        var parser = WebSocketFrameParser(
            maximumFrameSize: options.maximumMessageSize + compressedSlack, allowsCompression: deflate != nil)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: options.maximumMessageSize, deflate: deflate)
        do {
            // A peer that sends faster than its frames are handled never makes this loop wait: it lets its thread go
            // after a turn of work, so that one flood cannot hold the thread that reads every socket of its transport.
            var work = 0
            while true {
                await pace(&work)
                if options.keepAlive != nil { state.withLock { $0.listeningSince = .now } }
                guard let bytes = try await connection.read(maximumLength: Self.readSize) else {
                    return run.over(connectionEnded: true)
                }
                if options.keepAlive != nil { heard() }
                // A full read: the socket has more, and the turn is over.
                work += bytes.count == Self.readSize ? Self.turn : 1
                parser.append(bytes)
                while let frame = try parser.nextFrame() {
                    work += 1
                    await pace(&work)
                    guard let incoming = try assembler.take(frame) else { continue }
                    guard try await handle(incoming) else { return }
                }
            }
        } catch let failure as WebSocketFailure {
            fail(.socket(failure))
        } catch {
            // A connection closed from this side fails its read: the socket is already over then.
            guard !run.isOver else { return run.over(connectionEnded: false) }
            let error = WebSocketError(error)
            if error == .cancelled { return run.over(connectionEnded: true) }
            fail(error)
        }
    }

    /// Acts on what a frame completed; `false` once nothing more is to be read.
    private func handle(_ incoming: WebSocketMessageAssembler.Incoming) async throws -> Bool {
        switch incoming {
        case .message(let message):
            events?.report(
                .capability(WebSocketEvent.messageReceived(isText: message.isText, bytes: message.byteCount)))
            // After this side's close the peer may still send; nobody waits for it.
            guard run.acceptsMessages else { return true }
            _ = await inbox.put(message)
        case .ping(let payload):
            events?.report(.capability(WebSocketEvent.controlFrame(.pingReceived, bytes: payload.count)))
            guard run.acceptsMessages else { return true }
            try await write(WebSocketFrame(isFinal: true, opcode: .pong, payload: payload), onlyWhileOpen: true)
            events?.report(.capability(WebSocketEvent.controlFrame(.pongSent, bytes: payload.count)))
        case .pong(let payload):
            events?.report(.capability(WebSocketEvent.controlFrame(.pongReceived, bytes: payload.count)))
            state.withLock { $0.awaitingPongSince = nil }
        case .close(let closure):
            guard let answer = run.lifecycle({ $0.peerClosed(closure) }) else {
                run.over(connectionEnded: false)
                return false
            }
            events?.report(.capability(WebSocketEvent.closing(code: closure.code.rawValue, byPeer: true)))
            await writeCloseFrame(code: answer)
            run.over(connectionEnded: false)
            return false
        }
        return true
    }

    /// Bytes arrived from the peer: it is alive, whatever it sends before the pong (which waits behind them).
    private func heard() {
        state.withLock { state in
            state.listeningSince = nil
            if state.awaitingPongSince != nil { state.awaitingPongSince = .now }
        }
    }

    /// Pings every interval, skipping a ping while the last one is unanswered, and fails the socket when nothing
    /// arrives from the peer for the timeout after one (its pong may wait behind messages). Only time spent listening
    /// counts: while the socket is not read — its inbox full, the reader behind — the pong could not be heard. The
    /// ping goes out in a task of its own: a ping that cannot go out (a peer that stopped reading) is unanswered too.
    func keepAlive(_ keepAlive: WebSocketOptions.KeepAlive) async {
        // Deadlines a clock can wait for: past a century, `Task.sleep(until:)` traps.
        var keepAlive = keepAlive
        (keepAlive.interval, keepAlive.timeout) = (
            min(keepAlive.interval, .effectivelyForever), min(keepAlive.timeout, .effectivelyForever)
        )
        var nextPing = ContinuousClock.now + keepAlive.interval
        var pinging: Task<Void, Never>?
        defer { pinging?.cancel() }
        do {
            while true {
                let unanswered = state.withLock { $0.awaitingPongSince }
                try await Task.sleep(until: unanswered.map { min(nextPing, $0 + keepAlive.timeout) } ?? nextPing)
                let now = ContinuousClock.now
                let isUnanswered = state.withLock { state in
                    guard let since = state.awaitingPongSince, now >= since + keepAlive.timeout else { return false }
                    // The wait counts from when the reading loop last began to listen (not listening: from now).
                    let start = max(since, state.listeningSince ?? now)
                    state.awaitingPongSince = start
                    return now >= start + keepAlive.timeout
                }
                if isUnanswered {
                    return fail(.socket(WebSocketFailure(.pingTimeout, "no pong within \(keepAlive.timeout)")))
                }
                guard now >= nextPing else { continue }
                nextPing = now + keepAlive.interval
                let sends = state.withLock { state in
                    guard state.awaitingPongSince == nil else { return false }
                    state.awaitingPongSince = now
                    return true
                }
                if sends { pinging = Task { try? await self.ping(Data()) } }
            }
        } catch {
            return  // cancelled with the socket's end
        }
    }

}
