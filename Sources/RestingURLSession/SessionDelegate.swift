import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What runs one task of a ``URLSessionClient``: a ``TaskExchange`` (an HTTP exchange) or a
/// ``URLSessionWebSocket``.
protocol SessionTask: AnyObject, Sendable {
    /// The task completed, with `error` or not, having received `response` if anything.
    func complete(_ error: (any Error)?, response: URLResponse?)
    /// Ends the task now.
    func cancel()
}

/// The delegate of a ``URLSessionClient``'s session: hands each task's events to its ``SessionTask`` and
/// refuses URLSession's own redirects, so that ``/RestingCore/RedirectFollower`` handles them the same as on every
/// transport (FoundationNetworking drops bodies on 307/308 and keeps credentials across origins).
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionWebSocketDelegate, Sendable {
    private struct Registry {
        var exchanges: [Int: any SessionTask] = [:]
        /// Sends admitted and not yet returned (their task may not exist yet).
        var admitted = 0
        var isShutDown = false
        /// A shutdown's grace period has passed: every exchange is cancelled, and so is any task still to start.
        var cancelsEverything = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func takeWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard exchanges.isEmpty, admitted == 0, !idleWaiters.isEmpty else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    private let registry = Locked(Registry())

    /// Counts a send in until ``leave()``; `false` once shut down. Under the same lock as the shutdown, so no send
    /// can create a task on a session that is being invalidated.
    func admit() -> Bool {
        registry.withLock { registry in
            guard !registry.isShutDown else { return false }
            registry.admitted += 1
            return true
        }
    }

    func leave() {
        let waiters = registry.withLock { registry in
            registry.admitted -= 1
            return registry.takeWaitersIfIdle()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Registers the exchange of a task just created; `false` when the shutdown's deadline has passed and the task
    /// must not run.
    func register(_ exchange: any SessionTask, for task: URLSessionTask) -> Bool {
        registry.withLock { registry in
            guard !registry.cancelsEverything else { return false }
            registry.exchanges[task.taskIdentifier] = exchange
            return true
        }
    }

    /// Takes no more sends.
    func shutDown() { registry.withLock { $0.isShutDown = true } }

    /// Cancels every exchange, and every task that would start from now on.
    func cancelEverything() {
        let exchanges = registry.withLock { registry in
            registry.cancelsEverything = true
            return Array(registry.exchanges.values)
        }
        for exchange in exchanges { exchange.cancel() }
    }

    /// Returns once every send has returned and every task has reported completion, so that everything they held
    /// (body streams, files) has been released: what leak tests wait for after cancelling calls, and a shutdown.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = registry.withLock { registry in
                if registry.exchanges.isEmpty, registry.admitted == 0 { return true }
                registry.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func exchange(for task: URLSessionTask) -> TaskExchange? {
        registry.withLock { $0.exchanges[task.taskIdentifier] } as? TaskExchange
    }

    private func webSocket(for task: URLSessionTask) -> URLSessionWebSocket? {
        registry.withLock { $0.exchanges[task.taskIdentifier] } as? URLSessionWebSocket
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        webSocket(for: webSocketTask)?.opened()
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        webSocket(for: webSocketTask)?.peerClosed(closeCode, reason: reason)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Authentication is the interceptors' business (`AuthInterceptor` (RestingAuthentication) refreshes on a 401), so a 401
    /// must reach the caller as a response. FoundationNetworking on Linux holds back the completion of a 401 that
    /// carries `WWW-Authenticate` and asks here instead; answering "default handling" without a stored credential then
    /// waits forever, and any other answer cancels the task (or, for `.useCredential`, re-sends it with a made-up Basic
    /// credential). The whole response has arrived by now (its body came through the serial delegate queue before this
    /// call), so the exchange completes with it, and the task, no longer needed, is cancelled.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let response = challenge.failureResponse ?? task.response else {
            return completionHandler(.performDefaultHandling, nil)
        }
        registry.withLock { $0.exchanges[task.taskIdentifier] }?.complete(nil, response: response)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// The head, before any body: what a streamed call is resumed with. (FoundationNetworking on Linux ignores
    /// the disposition; `.allow` is what every platform expects.)
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(for: dataTask)?.receiveHead(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.receive(data, response: dataTask.response)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.sent(totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(exchange(for: task)?.makeBodyStream())
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = registry.withLock { $0.exchanges.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error, response: task.response)
        let waiters = registry.withLock { $0.takeWaitersIfIdle() }
        for waiter in waiters { waiter.resume() }
    }
}
