import Foundation
import RestingConnections
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``/RestingCore/HTTPClient`` on `URLSession` — FoundationNetworking on Linux.
///
/// One client keeps one long-lived session (per-request sessions hit FoundationNetworking teardown bugs on Linux);
/// share it, or use ``shared``. It performs one exchange per `send`; the client's chain follows redirects.
///
/// It validates nothing: a `RestingClient`'s chain checks every request where it leaves for the transport (header
/// names and values — no CR, LF or NUL —, the method, the scheme, a body on a `GET`). Calling `send` yourself, wrap
/// it in ``/RestingCore/RedirectingHTTPClient``, which checks each request the same way.
///
/// Bodies in memory are sent with a `Content-Length`; file and stream bodies (multipart forms included) are
/// streamed from disk through an `InputStream` — on Linux always chunked, as FoundationNetworking cannot
/// send a stream with a length (endpoints that insist on `Content-Length` for large bodies need
/// `CurlClient`). `fromFile` uploads are never used: on Linux cancelling one can kill the process.
/// Responses larger than ``maximumResponseSize`` fail with ``/RestingCore/RestingError/responseTooLarge(limit:)``;
/// downloads (``/RestingCore/HTTPRequest/downloadTarget``) stream to their file instead of memory.
///
/// What FoundationNetworking on Linux cannot do — pinning, client certificates, proxies, Unix sockets, per-phase
/// metrics (``/RestingCore/HTTPDataResponse/metrics`` is `nil`) — needs `CurlClient`; a proxy configured on the session
/// fails with ``/RestingCore/RestingError/unsupported(feature:transport:)`` rather than being ignored.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.timeoutIntervalForRequest = 10
/// let client = RestingClient(baseUrl: "https://api.example.com", httpClient: URLSessionClient(configuration: configuration))
/// ```
///
/// **WebSockets** (`RestingClient.webSocket(_:options:)`) run on a `URLSessionWebSocketTask` where FoundationNetworking
/// speaks WebSocket (Apple platforms); the handshake is the chain's request like any call's. Linux's FoundationNetworking
/// in Swift 6.3 was built without libcurl's WebSocket API: there opening one fails with
/// ``/RestingCore/RestingError/unsupported(feature:transport:)``, and `CurlClient` has them.
///
/// Task cancellation cancels the data task; the call fails with ``/RestingCore/RestingError/cancelled``. Failures keep
/// the `URLError` code in ``/RestingCore/TransportError/code``.
///
/// **Streamed responses** (``/RestingCore/HTTPRequest/responseStreaming``) go up with their head; the body follows
/// through a ``/RestingCore/ResponseBodyStream``. FoundationNetworking on Linux cannot stop receiving (its `suspend()`
/// restarts the transfer from the first byte), so there is no back-pressure on the socket: when the reader falls behind
/// its buffer, chunks wait in an unlinked temporary file (at most ``streamSpillLimit`` bytes, then the body fails with
/// ``/RestingCore/RestingError/responseTooLarge(limit:)``) and memory stays bounded by the stream's buffer.
/// `CurlClient` pauses its socket instead.
///
/// - Warning: on Linux, a response with trailers after a chunked body makes FoundationNetworking trap
///   ("Transfer completed, but there's no response"), killing the process; nothing a delegate does avoids it.
///   Talk to servers you do not trust through `CurlClient`, which reads trailers apart from the headers. A request
///   body with trailers (``/RestingCore/RequestBody/sequence(_:contentLength:iteration:trailers:)``) fails every call
///   with ``/RestingCore/RestingError/unsupported(feature:transport:)``: FoundationNetworking sends none.
public final class URLSessionClient: HTTPClient {
    /// A client on a session with the default configuration, created once.
    public static let shared = URLSessionClient()

    /// The session every request runs on; its delegate belongs to the client.
    public let session: URLSession
    /// The largest response body kept in memory.
    public let maximumResponseSize: Int64
    /// The slowest a response may arrive once its body has begun (see ``/RestingCore/MinimumTransferRate``); `nil` for
    /// none.
    public let minimumTransferRate: MinimumTransferRate?
    /// The most of a streamed body kept on disk for a reader that fell behind, and of an async sequence's upload
    /// spooled before it is sent.
    public let streamSpillLimit: Int64
    /// 1 GiB.
    public static let defaultStreamSpillLimit: Int64 = 1 << 30
    private let delegate = SessionDelegate()
    /// A setting of the session that this platform would silently ignore; every call fails with it.
    private let unsupportedSetting: RestingError?
    /// Whether calls may go through the proxy the environment names (Linux; see ``init(configuration:maximumResponseSize:minimumTransferRate:streamSpillLimit:connections:followsProxyEnvironment:)``).
    public let followsProxyEnvironment: Bool

    /// A client on a new session with `configuration`; keep the client for as long as you make calls.
    ///
    /// On Linux, a configuration with a `connectionProxyDictionary` makes every call fail with
    /// ``/RestingCore/RestingError/unsupported(feature:transport:)``: FoundationNetworking would ignore it and connect
    /// directly. Use `CurlClient`'s proxy settings there. Likewise for `connections`: URLSession has none of
    /// ``/RestingConnections/ConnectionOptions``' settings, so a client given any of them fails every call with
    /// ``/RestingCore/RestingError/unsupported(feature:transport:)`` naming the first, rather than connecting as if
    /// it were not set.
    ///
    /// On Linux, FoundationNetworking's libcurl follows the proxy environment variables (`http_proxy`, `https_proxy`,
    /// `all_proxy`) whatever the configuration says, and sends the credentials in them before the proxy asks. As
    /// `CurlClient` ignores the environment unless told, a call that they would send through a proxy fails with
    /// ``/RestingCore/RestingError/unsupported(feature:transport:)`` unless `followsProxyEnvironment` is true (a
    /// `no_proxy` of `*` sends every call direct). Apple platforms use the system's settings and ignore both.
    public init(
        configuration: URLSessionConfiguration = .default,
        maximumResponseSize: Int64 = TransportDefaults.maximumResponseSize,
        minimumTransferRate: MinimumTransferRate? = .default,
        streamSpillLimit: Int64 = URLSessionClient.defaultStreamSpillLimit,
        connections: ConnectionOptions = ConnectionOptions(), followsProxyEnvironment: Bool = false
    ) {
        self.followsProxyEnvironment = followsProxyEnvironment
        // Cookies flow only through a `CookieJar` (a `CookieInterceptor`), as on every transport: a second,
        // silent jar here would make this transport disagree with the others.
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // Likewise caching belongs to an `HTTPCacheInterceptor`: FoundationNetworking's own cache would answer
        // behind the interceptors' back, and keeps every chunk of a cacheable body in memory until it ends.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.maximumResponseSize = maximumResponseSize
        self.minimumTransferRate = minimumTransferRate
        self.streamSpillLimit = streamSpillLimit
        unsupportedSetting =
            Self.unsupportedSetting(of: configuration)
            ?? connections.setOptions.first.map {
                .unsupported(feature: "ConnectionOptions.\($0)", transport: "URLSessionClient")
            }
    }

    /// Returns once every task of this client has completed and released what it held (for leak tests).
    package func waitUntilIdle() async { await delegate.waitUntilIdle() }

    /// Stops the client: new sends fail with ``/RestingCore/RestingError/shutDown``; tasks in flight, streamed bodies
    /// included, run to their end, or are cancelled once `gracePeriod` has passed; then the session is invalidated,
    /// which releases its delegate and connections. See ``/RestingCore/HTTPClient/shutdown(gracePeriod:)``.
    ///
    /// ``shared`` belongs to the whole process and is never shut down: its shutdown does nothing (as
    /// AsyncHTTPClient's shared client refuses one). Make a client of your own to shut it down.
    public func shutdown(gracePeriod: Duration?) async {
        guard self !== Self.shared else { return }
        delegate.shutDown()
        let deadline = GracePeriod(gracePeriod) { [delegate] in delegate.cancelEverything() }
        await delegate.waitUntilIdle()
        deadline.cancel()
        session.finishTasksAndInvalidate()
    }

    /// Runs `body` with a new client on a session with `configuration`, and shuts the client down when `body`
    /// returns or throws (see ``shutdown(gracePeriod:)``).
    ///
    /// ```swift
    /// let post = try await URLSessionClient.withURLSessionClient { transport in
    ///     try await RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
    ///         .perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value.body
    /// }
    /// ```
    public static func withURLSessionClient<Result>(
        configuration: URLSessionConfiguration = .default, gracePeriod: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation, _ body: (URLSessionClient) async throws -> Result
    ) async throws -> Result {
        try await URLSessionClient(configuration: configuration).shuttingDown(gracePeriod: gracePeriod, after: body)
    }

    private static func unsupportedSetting(of configuration: URLSessionConfiguration) -> RestingError? {
        #if canImport(FoundationNetworking)
        if let proxies = configuration.connectionProxyDictionary, !proxies.isEmpty {
            return .unsupported(feature: "proxies (connectionProxyDictionary) on Linux", transport: "URLSessionClient")
        }
        #endif
        return nil
    }

    /// One exchange: `request` (validated by the chain that sends it) and its response, a 3xx included — the
    /// session delegate refuses URLSession's own redirect handling.
    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        if let unsupportedSetting { throw unsupportedSetting }
        // URLSession hands no connection over after a 101; a URLSessionWebSocketTask speaks WebSocket itself.
        if let upgrade = request.upgrade, upgrade != .webSocket {
            throw RestingError.unsupported(
                feature: "an upgrade to \(upgrade.protocolName)", transport: "URLSessionClient")
        }
        guard delegate.admit() else { throw RestingError.shutDown }
        defer { delegate.leave() }
        // A deadline a century away is none; FoundationNetworking would overflow converting a larger one.
        guard let timeout = request.timeout, timeout < .effectivelyForever else {
            return try await perform(request, timeout: nil, progress: progress)
        }
        return try await withDeadline(
            timeout,
            expired: {
                .transportFailed(
                    TransportError(
                        kind: .timedOut, code: URLError.timedOut.rawValue, domain: NSURLErrorDomain,
                        message: "no response within \(timeout)"))
            },
            operation: { try await self.perform(request, timeout: timeout, progress: progress) })
    }

    /// The most of an async sequence's upload kept in memory while it is spooled (see ``send(_:progress:)``).
    static let uploadSpoolMemoryLimit = 1 << 20

    /// Maps `request` and runs it. FoundationNetworking reads a stream body on one serial queue that every session of
    /// the process shares, and cannot pause it: a read that waited for an async sequence's producer would stop every
    /// URLSession call of the process — and deadlock once Swift's cooperative threads wait in URLSession for that
    /// queue while the producer needs one of them. So such a body is spooled first (``uploadSpoolMemoryLimit`` in
    /// memory, the rest up to ``streamSpillLimit`` in an unlinked temporary file) and sent once the sequence has ended;
    /// `CurlClient` pauses the transfer instead and sends each chunk as it comes.
    private func perform(
        _ request: HTTPRequest, timeout: Duration?, progress: @escaping ProgressHandler
    ) async throws -> HTTPDataResponse {
        var request = request
        guard request.attributes.proxy == nil else {
            throw RestingError.unsupported(feature: "a request's own proxy route", transport: "URLSessionClient")
        }
        #if canImport(FoundationNetworking)
        // libcurl reads the variables for each transfer: so is the check.
        if !followsProxyEnvironment, let variable = ProxyEnvironment.variable(for: request.url) {
            throw RestingError.unsupported(
                feature: "a call through the proxy \(variable) names (followsProxyEnvironment is off)",
                transport: "URLSessionClient")
        }
        #endif
        if request.upgrade == .webSocket {
            return try await URLSessionWebSocket.open(request, session: session, delegate: delegate)
        }
        guard request.body.trailers == nil else {
            // FoundationNetworking sends no trailer section: sending the body without them would drop them silently.
            throw RestingError.unsupported(feature: "request trailers", transport: "URLSessionClient")
        }
        // Refused before the body is read: a single-pass body is still the caller's.
        try Self.check(request.attributes.httpVersion)
        request.body = try await request.body.spooled(
            memoryLimit: Self.uploadSpoolMemoryLimit, diskLimit: streamSpillLimit)
        var urlRequest = try URLSessionMapping.urlRequest(for: request)
        #if !canImport(FoundationNetworking)
        // URLSession races QUIC itself, when told the server may speak it.
        urlRequest.assumesHTTP3Capable = request.attributes.httpVersion?.asksForHTTP3 == true
        #endif
        // FoundationNetworking truncates `timeoutInterval` to whole seconds (`Int(timeoutInterval) * 1000` ms),
        // so a 0.3 s timeout fires at once; the deadline is enforced by `send` instead, exactly, and the request
        // carries a whole-second value that can only fire after it.
        // A streamed response's timeout bounds its head only: the session's own (idle) timeout governs its body.
        if let timeout, request.responseStreaming == nil {
            urlRequest.timeoutInterval = (timeout.seconds + 1).rounded(.up)
        }
        return try await perform(request, urlRequest, progress: progress)
    }

    /// Refuses a request's HTTP version where URLSession cannot honour it: FoundationNetworking's libcurl speaks no
    /// HTTP/3, so HTTP/3 only is refused there (HTTP/3 with fallback is TCP). On Apple platforms both ask URLSession
    /// to try HTTP/3 (`assumesHTTP3Capable`), which decides for itself; the choice between HTTP/1.1 and HTTP/2 is
    /// always URLSession's.
    static func check(_ version: HTTPVersion?) throws(RestingError) {
        #if canImport(FoundationNetworking)
        if version == .http3Only {
            throw .unsupported(
                feature: "HTTP/3 (FoundationNetworking's libcurl speaks none)", transport: "URLSessionClient")
        }
        #endif
    }

    /// Runs one task; cancelling the calling task ends the call at once (see ``TaskExchange``).
    private func perform(
        _ request: HTTPRequest, _ urlRequest: URLRequest, progress: @escaping ProgressHandler
    ) async throws -> HTTPDataResponse {
        let exchange = TaskExchange(
            request: request, maximumResponseSize: maximumResponseSize,
            minimumRate: minimumTransferRate, streamSpillLimit: streamSpillLimit, progress: progress)
        var urlRequest = urlRequest
        if urlRequest.httpBody == nil, !request.body.isEmpty { urlRequest.httpBodyStream = exchange.makeBodyStream() }
        return try await withTaskCancellationHandler { [urlRequest] in
            defer { exchange.joinResumer() }
            return try await withCheckedThrowingContinuation { continuation in
                exchange.start(session: session, delegate: delegate, request: urlRequest, continuation: continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}
