import Foundation
import RestingCore
import RestingWebSocketCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``URLSessionClient``'s WebSocket: the handshake and messages of a `URLSessionWebSocketTask`, handed up as a
/// ``/RestingWebSocketCore/TransportWebSocket`` (URLSession gives messages, never the connection's bytes).
///
/// The handshake request is the chain's — its URL, headers (a bearer token, a cookie, `traceparent`), subprotocols
/// — minus the fields URLSession writes itself (`Upgrade`, `Connection`, `Sec-WebSocket-Key`, `-Version`,
/// `-Extensions`). A `101` returns the socket; any other status returns as a response (its status and headers;
/// URLSession keeps no body of a refused upgrade), so the chain's redirects, authentication and status check see
/// it like any answer. Where FoundationNetworking is built without libcurl's WebSocket API (Linux's, in Swift 6.3)
/// the call fails with ``/RestingCore/RestingError/unsupported(feature:transport:)``.
final class URLSessionWebSocket: TransportWebSocket, SessionTask {
    private let task: URLSessionWebSocketTask
    private let url: URL

    /// Where the task is, each phase with what waits on it.
    private enum Phase {
        case idle
        /// Resumed, waiting for the answer to the handshake.
        case connecting(CheckedContinuation<HTTPDataResponse, any Error>)
        /// Upgraded; `endWaiters` wait for the task's completion (the end of a close handshake).
        case open(endWaiters: [CheckedContinuation<Void, Never>])
        /// Completed, or cancelled before it began.
        case ended
    }

    private struct State {
        var phase = Phase.idle
        /// This side sent its close frame.
        var sentClose = false
        /// The peer's close frame, as URLSession's delegate reported it.
        var peerClosure: WebSocketClosure?
    }

    private let state = Locked(State())

    private init(task: URLSessionWebSocketTask, url: URL) {
        self.task = task
        self.url = url
    }

    /// Sends `request`'s handshake on `session` and returns its answer: a `101` whose body is the socket, or the
    /// status and headers of a refusal.
    static func open(_ request: HTTPRequest, session: URLSession, delegate: SessionDelegate) async throws
        -> HTTPDataResponse
    {
        var urlRequest = try URLSessionMapping.urlRequest(for: request)
        for field in [
            "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions",
        ] {
            urlRequest.setValue(nil, forHTTPHeaderField: field)
        }
        urlRequest.url = webSocketURL(for: request.url)
        let socket = URLSessionWebSocket(task: session.webSocketTask(with: urlRequest), url: request.url)
        guard delegate.register(socket, for: socket.task) else {
            socket.task.cancel()
            throw RestingError.cancelled
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in socket.start(continuation) }
        } onCancel: {
            socket.cancel()
        }
    }

    /// `url` with `http` as `ws` and `https` as `wss`, the schemes a WebSocket task takes.
    private static func webSocketURL(for url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case "http": components.scheme = "ws"
        case "https": components.scheme = "wss"
        default: break
        }
        return components.url ?? url
    }

    private func start(_ continuation: CheckedContinuation<HTTPDataResponse, any Error>) {
        let starts = state.withLock { state in
            guard case .idle = state.phase else { return false }
            state.phase = .connecting(continuation)
            return true
        }
        guard starts else { return continuation.resume(throwing: RestingError.cancelled) }
        task.resume()
    }

    // MARK: The session delegate's reports

    /// The answer's head arrived: a `101` opens the socket; any other status is a refusal.
    func opened() {
        let head = task.response as? HTTPURLResponse
        let refused = head.flatMap { $0.statusCode == 101 ? nil : $0 }
        let waiter = state.withLock { state -> CheckedContinuation<HTTPDataResponse, any Error>? in
            guard case .connecting(let waiter) = state.phase else { return nil }
            state.phase = refused == nil ? .open(endWaiters: []) : .ended
            return waiter
        }
        guard let waiter else { return }
        if let refused {
            task.cancel()
            return waiter.resume(returning: refusal(refused))
        }
        let headers = head.map(URLSessionMapping.headers(of:)) ?? HTTPHeaderFields()
        waiter.resume(
            returning: HTTPDataResponse(
                status: 101, headers: headers, body: ResponseBody(upgradedSession: self), url: url))
    }

    /// A refused upgrade as the chain sees it: its status and headers (URLSession keeps no body of one).
    private func refusal(_ head: HTTPURLResponse) -> HTTPDataResponse {
        HTTPDataResponse(status: head.statusCode, headers: URLSessionMapping.headers(of: head), body: .empty, url: url)
    }

    /// The peer's close frame arrived.
    func peerClosed(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        guard code != .invalid else { return }
        let closure = WebSocketClosure(
            code: WebSocketCloseCode(rawValue: UInt16(clamping: code.rawValue)),
            reason: reason.flatMap { String(data: $0, encoding: .utf8) } ?? "")
        state.withLock { $0.peerClosure = closure }
    }

    func complete(_ error: (any Error)?, response: URLResponse?) {
        let phase = state.withLock { state in
            defer { state.phase = .ended }
            return state.phase
        }
        switch phase {
        case .connecting(let waiter):
            if let head = response as? HTTPURLResponse, head.statusCode != 101 {
                return waiter.resume(returning: refusal(head))
            }
            waiter.resume(throwing: Self.handshakeFailure(error))
        case .open(let endWaiters):
            for waiter in endWaiters { waiter.resume() }
        case .idle, .ended:
            break
        }
    }

    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<HTTPDataResponse, any Error>? in
            switch state.phase {
            case .idle:
                state.phase = .ended
                return nil
            case .connecting(let waiter):
                state.phase = .ended
                return waiter
            case .open, .ended:
                return nil
            }
        }
        waiter?.resume(throwing: RestingError.cancelled)
        task.cancel()
    }

    // MARK: TransportWebSocket

    var peerClosure: WebSocketClosure? { state.withLock { $0.peerClosure } }

    func receive(maximumSize: Int) async throws -> WebSocketMessage? {
        task.maximumMessageSize = maximumSize
        do {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default:
                throw WebSocketFailure(.protocolViolation, "a message of an unknown kind")
            }
        } catch {
            // A close handshake ends the task: its close code, and the delegate's report of it, are known then.
            let closing = task.closeCode != .invalid || state.withLock { $0.sentClose }
            guard closing else {
                task.cancel()
                throw Self.messageFailure(error)
            }
            await ended()
            if state.withLock({ $0.peerClosure == nil && !$0.sentClose }) {
                peerClosed(task.closeCode, reason: task.closeReason)
            }
            return nil
        }
    }

    /// Waits for the task's completion.
    private func ended() async {
        await withCheckedContinuation { continuation in
            let hasEnded = state.withLock { state in
                guard case .open(let waiters) = state.phase else { return true }
                state.phase = .open(endWaiters: waiters + [continuation])
                return false
            }
            if hasEnded { continuation.resume() }
        }
    }

    func send(_ message: WebSocketMessage) async throws {
        do {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let data): try await task.send(.data(data))
            }
        } catch {
            throw Self.messageFailure(error)
        }
    }

    func ping() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error {
                    continuation.resume(throwing: Self.messageFailure(error))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) {
        state.withLock { $0.sentClose = true }
        // Apple's close codes take any value; FoundationNetworking's only those it names, so a private code goes
        // as 1000 there.
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
        let reason = WebSocketClosure.reasonPayload(reason)
        task.cancel(with: closeCode, reason: reason.isEmpty ? nil : reason)
    }

    // MARK: Errors

    /// A handshake that ended without an answer.
    private static func handshakeFailure(_ error: (any Error)?) -> any Error {
        #if canImport(FoundationNetworking)
        // The only way FoundationNetworking says it was built without libcurl's WebSocket API.
        if (error as? URLError)?.code == .unsupportedURL {
            return RestingError.unsupported(
                feature: "WebSocket (FoundationNetworking built without libcurl's WebSocket API)",
                transport: "URLSessionClient")
        }
        #endif
        guard let error else { return WebSocketFailure(.connectionLost, "the handshake ended") }
        return URLSessionMapping.restingError(error)
    }

    /// A message, a ping or a pong that failed on an open socket.
    private static func messageFailure(_ error: any Error) -> any Error {
        if error is RestingError || error is WebSocketFailure { return error }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain, error.code == Int(EMSGSIZE) {
            return WebSocketFailure(.messageTooLarge, "a message past the socket's limit")
        }
        if error.domain == NSURLErrorDomain, error.code == NSURLErrorCancelled { return RestingError.cancelled }
        // URLSession does not say which rule a peer broke; only that the connection is over.
        return WebSocketFailure(.connectionLost, error.localizedDescription)
    }
}
