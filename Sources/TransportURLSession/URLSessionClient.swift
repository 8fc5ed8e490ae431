import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPClient`` on `URLSession` — FoundationNetworking on Linux.
///
/// One client keeps one long-lived session (per-request sessions hit FoundationNetworking teardown bugs on
/// Linux); share it, or use ``shared``. Bodies are sent from memory in this version: file and stream bodies
/// are read whole before sending. Redirects are followed by ``RedirectFollower`` like on every transport.
///
/// What FoundationNetworking on Linux cannot do — pinning, client certificates, proxies, Unix sockets,
/// per-phase metrics (``HTTPDataResponse/metrics`` is `nil`) — needs `CurlClient`; a proxy configured on the
/// session fails with ``RestingError/unsupported(feature:transport:)`` rather than being ignored.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.timeoutIntervalForRequest = 10
/// let client = RestingClient(baseUrl: "https://api.example.com", httpClient: URLSessionClient(configuration: configuration))
/// ```
///
/// Task cancellation cancels the data task; the call fails with ``RestingError/cancelled``. Failures keep
/// the `URLError` code in ``TransportError/code``.
public final class URLSessionClient: HTTPClient {
    /// A client on a session with the default configuration, created once.
    public static let shared = URLSessionClient()

    public let session: URLSession
    /// Redirects followed per request (by ``RedirectFollower``, not by URLSession); 0 returns 3xx responses.
    public let maximumRedirects: Int
    /// A setting of the session that this platform would silently ignore; every call fails with it.
    private let unsupportedSetting: RestingError?

    /// A client on a new session with `configuration`; keep the client for as long as you make calls.
    ///
    /// On Linux, a configuration with a `connectionProxyDictionary` makes every call fail with
    /// ``RestingError/unsupported(feature:transport:)``: FoundationNetworking would ignore it and connect
    /// directly. Use `CurlClient`'s proxy settings there.
    public init(configuration: URLSessionConfiguration = .default, maximumRedirects: Int = 10) {
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
        self.maximumRedirects = maximumRedirects
        unsupportedSetting = Self.unsupportedSetting(of: configuration)
    }

    /// A client on a session you own. Give it a delegate that refuses redirects (or none, and accept that
    /// URLSession follows them itself — on Linux it then drops request bodies on 307/308).
    public init(session: URLSession, maximumRedirects: Int = 10) {
        self.session = session
        self.maximumRedirects = maximumRedirects
        unsupportedSetting = Self.unsupportedSetting(of: session.configuration)
    }

    private static func unsupportedSetting(of configuration: URLSessionConfiguration) -> RestingError? {
        #if canImport(FoundationNetworking)
        if let proxies = configuration.connectionProxyDictionary, !proxies.isEmpty {
            return .unsupported(feature: "proxies (connectionProxyDictionary) on Linux", transport: "URLSessionClient")
        }
        #endif
        return nil
    }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        if let unsupportedSetting { throw unsupportedSetting }
        try request.validate()
        return try await RedirectFollower(maximumRedirects: maximumRedirects).send(request) { hop in
            try await exchange(hop, progress: progress)
        }
    }

    /// One request and its response; URLSession's own redirect handling is refused by the session delegate.
    private func exchange(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let urlRequest = try Self.urlRequest(for: request)
        let bodyLength = Int64(urlRequest.httpBody?.count ?? 0)
        let (data, response) = try await data(for: urlRequest, timeout: request.timeout)
        guard let httpResponse = response as? HTTPURLResponse else {
            throw RestingError.transportFailed(
                TransportError(kind: .malformedResponse, code: URLError.badServerResponse.rawValue,
                               domain: NSURLErrorDomain, message: "the response is not an HTTP response"))
        }
        let received = Int64(data.count)
        progress(TransferProgress(bytesSent: bodyLength, totalBytesToSend: bodyLength, bytesReceived: received,
                                  totalBytesToReceive: received))
        return HTTPDataResponse(
            status: httpResponse.statusCode, headers: Self.headers(of: httpResponse), body: data,
            url: httpResponse.url ?? request.url)
    }

    /// Runs a data task within `timeout`, if any.
    ///
    /// FoundationNetworking truncates `timeoutInterval` to whole seconds (`Int(timeoutInterval) * 1000` ms),
    /// so a 0.3 s timeout fires at once; the deadline is enforced here instead, exactly, and the request
    /// carries a whole-second value that can only fire after it.
    private func data(for urlRequest: URLRequest, timeout: Duration?) async throws -> (Data, URLResponse) {
        guard let timeout else { return try await data(for: urlRequest) }
        var urlRequest = urlRequest
        urlRequest.timeoutInterval = (timeout.seconds + 1).rounded(.up)
        return try await withThrowingTaskGroup(of: (Data, URLResponse).self) { [urlRequest] group in
            group.addTask { try await self.data(for: urlRequest) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw RestingError.transportFailed(
                    TransportError(kind: .timedOut, code: URLError.timedOut.rawValue, domain: NSURLErrorDomain,
                                   message: "no response within \(timeout)"))
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw RestingError.cancelled }
            return first
        }
    }

    /// Runs a data task; cancelling the calling task ends the call at once (see ``DataTaskCall``).
    private func data(for urlRequest: URLRequest) async throws -> (Data, URLResponse) {
        let call = DataTaskCall()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(session: session, request: urlRequest, continuation: continuation)
            }
        } onCancel: {
            call.cancel()
        }
    }

    static func urlRequest(for request: HTTPRequest) throws(RestingError) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty { urlRequest.httpBody = try request.body.collect() }
        return urlRequest
    }

    /// The response's headers, sorted by name: `HTTPURLResponse` keeps neither order nor repeats.
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        let fields = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        return HTTPHeaders(fields.sorted { $0.0.lowercased() < $1.0.lowercased() })
    }

    static func restingError(_ error: any Error) -> RestingError {
        guard let urlError = error as? URLError else {
            return .transportFailed(TransportError(kind: .other, code: 0, domain: "URLSession", message: "\(error)"))
        }
        let kind: TransportError.Kind
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: kind = .timedOut
        case .cannotFindHost, .dnsLookupFailed: kind = .dnsFailed
        case .cannotConnectToHost, .notConnectedToInternet: kind = .connectionFailed
        case .networkConnectionLost: kind = .connectionReset
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            kind = .tlsFailed
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            kind = .malformedResponse
        default: kind = .other
        }
        return .transportFailed(
            TransportError(kind: kind, code: urlError.code.rawValue, domain: NSURLErrorDomain,
                           message: urlError.localizedDescription))
    }
}

/// Refuses URLSession's own redirects, so that ``RedirectFollower`` handles them the same as on every
/// transport: FoundationNetworking drops bodies on 307/308 and keeps credentials across origins.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// One data task and the caller waiting for it, resumed exactly once: with the task's outcome, or with
/// `.cancelled` as soon as the call is cancelled — without waiting for FoundationNetworking to report the
/// cancellation, which under load takes seconds. The task is then cancelled for cleanup.
private final class DataTaskCall: Sendable {
    typealias Continuation = CheckedContinuation<(Data, URLResponse), any Error>

    private enum State {
        case idle
        case running(URLSessionDataTask, Continuation)
        case cancelledBeforeStart
        case finished
    }

    private let state = Locked(State.idle)

    func start(session: URLSession, request: URLRequest, continuation: Continuation) {
        if case .cancelledBeforeStart = state.withLock({ $0 }) {
            // Never create a task only to cancel it: that costs FoundationNetworking a transfer.
            return continuation.resume(throwing: RestingError.cancelled)
        }
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                self.finish(.failure(URLSessionClient.restingError(error)))
            } else if let response {
                self.finish(.success((data ?? Data(), response)))
            } else {
                self.finish(.failure(URLSessionClient.restingError(URLError(.badServerResponse))))
            }
        }
        let cancelledMeanwhile = state.withLock { state in
            if case .cancelledBeforeStart = state { return true }
            state = .running(task, continuation)
            return false
        }
        task.resume()
        if cancelledMeanwhile {
            task.cancel()
            continuation.resume(throwing: RestingError.cancelled)
        }
    }

    func cancel() {
        let running: (URLSessionDataTask, Continuation)? = state.withLock { state in
            switch state {
            case .idle:
                state = .cancelledBeforeStart
                return nil
            case .running(let task, let continuation):
                state = .finished
                return (task, continuation)
            case .cancelledBeforeStart, .finished:
                return nil
            }
        }
        guard let (task, continuation) = running else { return }
        continuation.resume(throwing: RestingError.cancelled)
        task.cancel()
    }

    private func finish(_ outcome: Result<(Data, URLResponse), RestingError>) {
        let continuation: Continuation? = state.withLock { state in
            guard case .running(_, let continuation) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume(with: outcome.mapError { $0 as any Error })
    }
}
