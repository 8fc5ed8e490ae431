import CCurl
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An upgrade's exchange on ``CurlClient`` (``/RestingCore/HTTPRequest/upgrade``): libcurl opens the connection
/// alone (`CURLOPT_CONNECT_ONLY`: DNS and host overrides, the proxy's tunnel, TLS with the client's CA, pins and
/// certificates), then the request head goes out and the answer comes back over it as HTTP/1.1, read here. A `101`
/// hands the connection up as the response's body; any other answer is read whole (by its `Content-Length`, its
/// chunks, or to the connection's end, within the client's size limit) and the connection closed.
///
/// libcurl 7.88 (Debian 12) has no WebSocket of its own, and this way every libcurl behaves the same.
enum UpgradeExchange {
    /// The longest response head accepted.
    static let maximumHeadSize = 64 * 1024
    /// The most one read of a connected socket asks libcurl for: what `WebSocketSession` reads at once.
    static let readSize = 64 * 1024

    static func perform(
        _ request: HTTPRequest, configuration: CurlConfiguration, poller: SocketPoller, upgrades: OpenUpgrades
    ) async throws -> HTTPDataResponse {
        let timeout = request.timeout ?? configuration.totalTimeout ?? configuration.connectTimeout * 2
        let expired: @Sendable () -> RestingError = {
            CurlError.restingError(CURLE_OPERATION_TIMEDOUT, detail: "no upgrade answer within \(timeout)")
        }
        return try await withDeadline(timeout, expired: expired) {
            try await exchange(request, configuration: configuration, poller: poller, upgrades: upgrades)
        }
    }

    /// The connection, the request head out, the answer in: ``perform(_:configuration:poller:upgrades:)`` without its
    /// deadline.
    private static func exchange(
        _ request: HTTPRequest, configuration: CurlConfiguration, poller: SocketPoller, upgrades: OpenUpgrades
    ) async throws -> HTTPDataResponse {
        let connection = try await connect(request, configuration: configuration, poller: poller, upgrades: upgrades)
        do {
            // The deadline's cancellation, or the caller's, closes the connection: a write does not stop for its
            // task (half a head would go out), and a peer that reads nothing would hold it for ever.
            return try await withTaskCancellationHandler {
                try await connection.write(head(of: request, userAgent: configuration.userAgent))
                return try await response(to: request, on: connection, limit: configuration.maximumResponseSize)
            } onCancel: {
                connection.close()
            }
        } catch {
            connection.close()
            throw error is CancellationError ? RestingError.cancelled : error
        }
    }

    /// The connection, opened on a thread of its own: `curl_easy_perform` blocks until it is.
    private static func connect(
        _ request: HTTPRequest, configuration: CurlConfiguration, poller: SocketPoller, upgrades: OpenUpgrades
    ) async throws -> CurlUpgradedConnection {
        // As for every call: libcurl must connect where everything above read the URL as going.
        try URLAgreement.check(request.url, request.url.absoluteString)
        let handle = try EasyHandle.make(for: configuration)
        // The upgrade is an HTTP/1.1 exchange on a TCP connection, whatever the client speaks otherwise: a QUIC
        // connection has no byte stream to write the head into.
        try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1), "HTTP/1.1 for an upgrade")
        try handle.reroute(request.attributes.proxy)
        try handle.set(CURLOPT_URL, request.url.absoluteString, "URL")
        try handle.set(CURLOPT_CONNECT_ONLY, 1, "connect only")
        // RestingKit reads the connection into buffers of its own: libcurl's receive buffer would idle with every
        // socket (16 KiB each by default).
        try handle.set(CURLOPT_BUFFERSIZE, 1024, "receive buffer")
        // Through a proxy, the connection is a tunnel (CONNECT), whatever the scheme: the upgrade is end to end. The
        // proxy's answer to the CONNECT goes to callbacks that need a transfer: this handle has none.
        try handle.set(CURLOPT_HTTPPROXYTUNNEL, 1, "proxy tunnel")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_HEADERFUNCTION, discardCallback), "headers")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_WRITEFUNCTION, discardCallback), "body")
        let attempt = ConnectAttempt(handle: handle, census: upgrades)
        // libcurl asks the progress callback at least once a second while it connects: a cancelled handshake's
        // thread ends then, not at the connect timeout (a host dropping SYNs would pile threads up).
        try handle.check(rk_easy_setopt_progress_callback(handle.raw, abandonedConnectCallback), "progress")
        try handle.set(CURLOPT_XFERINFODATA, pointer: Unmanaged.passUnretained(attempt).toOpaque(), "progress data")
        let code = try await attempt.run()
        guard code == CURLE_OK else { throw CurlError.restingError(code, of: handle) }
        // Connected: each `curl_easy_recv` now reads into the caller's buffer, but never more than the receive
        // buffer's size at once — 1 KiB would cost a message of 1 MiB a thousand reads.
        try handle.set(CURLOPT_BUFFERSIZE, Self.readSize, "receive size")
        let socket = rk_easy_active_socket(handle.raw)
        guard socket >= 0 else {
            throw CurlError.restingError(CURLE_COULDNT_CONNECT, detail: "libcurl kept no socket")
        }
        let registration = Locked<UInt64?>(nil)
        let connection = CurlUpgradedConnection(handle: handle, socket: socket, poller: poller) {
            if let id = registration.withLock({ $0 }) { upgrades.remove(id) }
        }
        let id = upgrades.add { [weak connection] in connection?.goAway() }
        registration.withLock { $0 = id }
        return connection
    }

    /// `request`'s head, as HTTP/1.1 sends it, with `userAgent` (the client's, as every call has) unless it has one.
    static func head(of request: HTTPRequest, userAgent: String? = nil) -> Data {
        let url = request.url
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        var lines = ["\(request.method.rawValue) \(target) HTTP/1.1"]
        if request.headers["Host"] == nil {
            var host = url.host(percentEncoded: true) ?? ""
            if host.contains(":") { host = "[\(host)]" }
            let isDefaultPort =
                url.port == nil || (url.scheme == "http" && url.port == 80)
                || (url.scheme == "https" && url.port == 443)
            lines.append("Host: \(host)\(isDefaultPort ? "" : ":\(url.port ?? 0)")")
        }
        if let userAgent, request.headers["User-Agent"] == nil { lines.append("User-Agent: \(userAgent)") }
        for field in request.headers { lines.append("\(field.name): \(field.value)") }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Reads the answer: a `101`'s head (its connection kept for the body), or a whole response.
    private static func response(
        to request: HTTPRequest, on connection: CurlUpgradedConnection, limit: Int64
    ) async throws -> HTTPDataResponse {
        var reader = HTTPHeadReader()
        while true {
            guard let bytes = try await connection.read(maximumLength: 16 * 1024) else {
                throw malformed("the connection ended before a response head")
            }
            guard let head = try reader.take(bytes) else { continue }
            connection.unread(reader.takeRemainder())
            if head.status == 101 {
                return HTTPDataResponse(
                    status: 101, headers: head.headers, body: ResponseBody(upgraded: connection), url: request.url)
            }
            // 100 Continue and the other interim answers come before the real one.
            if (100..<200).contains(head.status) {
                reader = HTTPHeadReader()
                continue
            }
            let body = try await HTTPBodyReader.read(head: head, from: connection, limit: limit)
            connection.close()
            return HTTPDataResponse(
                status: head.status, headers: head.headers, body: ResponseBody(body), url: request.url)
        }
    }

    static func malformed(_ detail: String) -> RestingError {
        .transportFailed(
            TransportError(kind: .malformedResponse, code: 0, domain: CurlError.domain, message: detail))
    }
}

/// `curl_easy_perform` of a connect-only handle on a thread of its own, awaited: a cancelled caller stops waiting at
/// once, and the connection, once made, is dropped with the handle.
private final class ConnectAttempt: @unchecked Sendable {
    // @unchecked: `handle` is touched by the connecting thread only, until it resumes the waiter.
    private let handle: EasyHandle
    /// Counts the connecting thread while it runs.
    private let census: OpenUpgrades
    private let waiter = Locked<(continuation: CheckedContinuation<CURLcode, any Error>?, isCancelled: Bool)>(
        (nil, false))

    init(handle: EasyHandle, census: OpenUpgrades) {
        self.handle = handle
        self.census = census
    }

    func run() async throws -> CURLcode {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = waiter.withLock { waiter in
                    waiter.continuation = continuation
                    return waiter.isCancelled
                }
                guard !cancelled else { return finish(.failure(RestingError.cancelled)) }
                let context = Unmanaged.passRetained(self)
                census.countConnectingThread(1)
                let started = rk_start_thread(
                    "resting-connect",
                    { context in
                        guard let context else { return }
                        let attempt = Unmanaged<ConnectAttempt>.fromOpaque(context).takeRetainedValue()
                        let code = curl_easy_perform(attempt.handle.raw)
                        attempt.census.countConnectingThread(-1)
                        attempt.finish(.success(code))
                    }, context.toOpaque())
                if started != 0 {
                    census.countConnectingThread(-1)
                    context.release()
                    finish(
                        .failure(CurlError.restingError(CURLE_FAILED_INIT, detail: "cannot start a connecting thread")))
                }
            }
        } onCancel: {
            let continuation = waiter.withLock { waiter in
                waiter.isCancelled = true
                defer { waiter.continuation = nil }
                return waiter.continuation
            }
            continuation?.resume(throwing: RestingError.cancelled)
        }
    }

    /// Whether the caller stopped waiting: the connecting thread gives up at libcurl's next progress call.
    var isAbandoned: Bool { waiter.withLock { $0.isCancelled } }

    private func finish(_ result: Result<CURLcode, any Error>) {
        let continuation = waiter.withLock { waiter in
            defer { waiter.continuation = nil }
            return waiter.continuation
        }
        continuation?.resume(with: result)
    }
}

/// Ends a connect-only `curl_easy_perform` whose ``ConnectAttempt`` (its progress data) was abandoned.
private let abandonedConnectCallback: rk_progress_callback = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    return Unmanaged<ConnectAttempt>.fromOpaque(userdata).takeUnretainedValue().isAbandoned ? 1 : 0
}
