import CCurl
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A connection libcurl opened (`CURLOPT_CONNECT_ONLY`: TCP, the proxy's tunnel, TLS with the client's options) and
/// that RestingKit speaks on itself with `curl_easy_recv` and `curl_easy_send`: an upgrade's handshake first
/// (``UpgradeExchange``), then, after a `101`, the new protocol as an ``/RestingCore/UpgradedConnection``.
///
/// Reads and writes never block a thread: when libcurl says "again", the task waits on the ``SocketPoller`` for the
/// socket. One lock keeps the reading and the writing task off the handle at the same moment (a TLS session is not
/// safe for both at once); it is held only for one non-blocking call.
final class CurlUpgradedConnection: UpgradedConnection {
    /// `handle` is used only under the lock, one non-blocking call at a time, and released by `close()`.
    private struct State {
        var handle: EasyHandle?
        /// Bytes read past the handshake's head, handed out first.
        var pending = Data()
        /// What the protocol on the connection does before the transport's shutdown closes it.
        var shutdownHandler: (@Sendable () async -> Void)?
    }

    private let lock: Locked<State>
    private let socket: Int32
    private let poller: SocketPoller
    private let onClose: @Sendable () -> Void

    init(handle: EasyHandle, socket: Int32, poller: SocketPoller, onClose: @escaping @Sendable () -> Void) {
        lock = Locked(State(handle: handle))
        self.socket = socket
        self.poller = poller
        self.onClose = onClose
        poller.attach()
    }

    deinit { close() }

    /// Gives back bytes read too far (past a head), to be read again first.
    func unread(_ bytes: Data) {
        lock.withLock { $0.pending = bytes + $0.pending }
    }

    func read(maximumLength: Int) async throws -> Data? {
        while true {
            try Task.checkCancellation()
            switch receive(maximumLength: maximumLength) {
            case .success(let bytes)?: return bytes
            case .failure(let error)?: throw error
            case nil: try await poller.wait(until: .readable, socket: socket, isAbandoned: isClosed)
            }
        }
    }

    /// What one non-blocking read gives: bytes, the end (`.success(nil)`), a failure, or `nil` for "again". Apart
    /// from ``read(maximumLength:)`` so that no buffer is held across its wait: ten thousand idle sockets would hold
    /// ten thousand buffers.
    private func receive(maximumLength: Int) -> Result<Data?, RestingError>? {
        lock.withLock { state -> Result<Data?, RestingError>? in
            if !state.pending.isEmpty {
                let taken = state.pending.prefix(maximumLength)
                state.pending.removeFirst(taken.count)
                return .success(Data(taken))
            }
            guard let handle = state.handle else { return .failure(Self.closedError) }
            // Into scratch memory, not zeroed, and only what arrived is copied out: a read of a few bytes must not cost
            // 64 KiB of memset, nor keep 64 KiB of capacity.
            return withUnsafeTemporaryAllocation(byteCount: max(1, maximumLength), alignment: 1) { buffer in
                var received = 0
                let code = curl_easy_recv(handle.raw, buffer.baseAddress, buffer.count, &received)
                switch code {
                case CURLE_OK:
                    return .success(received > 0 ? Data(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) : nil)
                case CURLE_AGAIN: return nil
                default: return .failure(CurlError.restingError(code, detail: "reading the upgraded connection"))
                }
            }
        }
    }

    func write(_ bytes: Data) async throws {
        var offset = 0
        while offset < bytes.count {
            let outcome = lock.withLock { state -> Result<Int, RestingError> in
                guard let handle = state.handle else { return .failure(Self.closedError) }
                var sent = 0
                let code = bytes.withUnsafeBytes { raw in
                    curl_easy_send(handle.raw, raw.baseAddress.map { $0 + offset }, raw.count - offset, &sent)
                }
                switch code {
                case CURLE_OK, CURLE_AGAIN: return .success(sent)
                default: return .failure(CurlError.restingError(code, detail: "writing the upgraded connection"))
                }
            }
            let sent = try outcome.get()
            offset += sent
            // Not cancellable once begun (see `UpgradedConnection`): only a close ends the wait.
            if sent == 0 { try await waitUncancellably(until: .writable) }
        }
    }

    func onTransportShutdown(_ handler: @escaping @Sendable () async -> Void) {
        lock.withLock { $0.shutdownHandler = handler }
    }

    /// The poller: its thread runs the reading task when the socket turns readable, so that a message reaches its
    /// consumer with one thread woken, not two.
    var readingExecutor: (any TaskExecutor)? { poller }

    /// The transport is shutting down: the protocol's own goodbye first (bounded by the protocol: a WebSocket's close
    /// timeout), then the connection closes.
    func goAway() {
        guard let handler = lock.withLock({ $0.handle == nil ? nil : $0.shutdownHandler }) else { return close() }
        Task {
            await handler()
            self.close()
        }
    }

    func close() {
        let handle = lock.withLock { state in
            defer { state.handle = nil }
            return state.handle
        }
        guard handle != nil else { return }
        poller.abandon(socket, with: Self.closedError)
        // The handle's cleanup closes the socket (with TLS's close_notify first).
        _ = consume handle
        poller.detach()
        onClose()
    }

    private func waitUncancellably(until readiness: SocketPoller.Readiness) async throws {
        try await Task.detached { [poller, socket, isClosed] in
            try await poller.wait(until: readiness, socket: socket, isAbandoned: isClosed)
        }.value
    }

    /// Whether ``close()`` has begun: a wait that starts after it would wait for a socket nobody will report.
    private var isClosed: @Sendable () -> Bool { { [lock] in lock.withLock { $0.handle == nil } } }

    private static let closedError = RestingError.transportFailed(
        TransportError(kind: .connectionReset, code: 0, domain: CurlError.domain, message: "the connection is closed"))
}
