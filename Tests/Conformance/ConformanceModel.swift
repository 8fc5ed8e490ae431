import Foundation
import RestingCore
import RestingServerHarness
import RestingTesting

/// The conformance server's routes in Swift, as the `fallback` responder of a ``/RestingTesting/StubHTTPClient``, so that
/// the stub runs the same checks as the transports with a wire.
///
/// It answers what `conformance_server.py` sends. Where that server misbehaves on the wire (resets, broken
/// framing, garbage), the model answers with the typed failure a wire transport reports for it; its slow
/// routes (`/drip`, `/silent`, `/delay`) are slow in time, so the stub's own timeouts and cancellation end them.
///
/// ```swift
/// let model = ConformanceModel()
/// let stub = StubHTTPClient(fallback: model.respond)
/// ```
public final class ConformanceModel: ConformanceBackend {
    /// Never opened: the stub has no sockets. A request to any other port is refused, as nothing listens there.
    public let port = 8080
    /// `false`: the streaming checks, which need a socket to fill or close, do not run against it.
    public let hasWire = false

    private struct Waiting {
        var tags: Set<String> = []
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let waiting = Locked(Waiting())

    /// A model with no request waiting.
    public init() {}

    public func waitUntilDelaying(tag: String) async throws {
        await withCheckedContinuation { continuation in
            let ready = waiting.withLock { state in
                if state.tags.contains(tag) { return true }
                state.waiters[tag, default: []].append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The conformance server's answer to `received`.
    @Sendable public func respond(to received: StubHTTPClient.ReceivedRequest) async throws -> StubResponse {
        let url = received.request.url
        guard url.host == "127.0.0.1" || url.host == "localhost" else {
            return .failure(Self.failure(.dnsFailed, "cannot resolve \(url.host ?? "")"))
        }
        guard url.port == port else {
            return .failure(Self.failure(.connectionFailed, "nothing listens on port \(url.port ?? 80)"))
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.path ?? url.path
        let query = (components?.queryItems ?? []).map { [$0.name, $0.value ?? ""] }
        func parameter(_ name: String) -> String? { query.first { $0[0] == name }?[1] }
        let segments = path.split(separator: "/").map(String.init)
        let number = segments.count > 1 ? Int(segments[1]) : nil

        switch (segments.first ?? "", number) {
        case ("echo", _), ("chain", 0):
            return try .json(Echo(received, path: path, query: query))
        case ("status", let code?):
            // Sent even for 204 and 304, which must reach the caller without it.
            return .status(code, body: parameter("body") == "1" ? Data("status \(code)".utf8) : Data())
        case ("challenge", _) where segments.count == 2:
            let challenges = [
                "basic": ("WWW-Authenticate", #"Basic realm="conformance", charset="UTF-8""#),
                "digest": (
                    "WWW-Authenticate",
                    #"Digest realm="conformance", qop="auth", nonce="dcd98b7102dd2f0e", opaque="5ccc069c""#
                ),
                "bearer": ("WWW-Authenticate", #"Bearer realm="conformance", error="invalid_token""#),
                "bearer-bare": ("WWW-Authenticate", #"Bearer error="invalid_token""#),
                "proxy": ("Proxy-Authenticate", #"Basic realm="proxy""#),
            ]
            guard let (name, value) = challenges[segments[1]] else { return .status(404) }
            return .status(
                segments[1] == "proxy" ? 407 : 401, headers: HTTPHeaderFields([(name, value)]),
                body: Data("credentials required".utf8))
        case ("trailers", _):
            // A stub response has no trailers: the head is all there is.
            return .status(200, body: Data("hello".utf8))
        case ("bytes", let count?):
            return .status(
                200, headers: ["Content-Type": "application/octet-stream"],
                body: Data((0..<count).map { UInt8($0 % 251) }))
        case ("headers", _):
            var headers: HTTPHeaderFields = ["X-Multi": "a"]
            for (name, value) in [
                ("x-multi", "b"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("X-Mixed-Case", "Value"),
            ] {
                headers.add(name: name, value: value)
            }
            return .status(200, headers: headers, body: Data("ok".utf8))
        case ("gzip", _), ("deflate", _):
            let coding = segments[0]
            return .status(
                200, headers: ["Content-Type": "application/json", "Content-Encoding": coding],
                body: Data(base64Encoded: Self.compressed[coding] ?? "") ?? Data())
        case ("redirect", let code?):
            return .status(code, headers: ["Location": parameter("to") ?? "/"])
        case ("loop", _):
            return .status(302, headers: ["Location": "/loop"])
        case ("chain", let hops?):
            return .status(302, headers: ["Location": "/chain/\(hops - 1)"])
        case ("delay", let milliseconds?):
            try await whileWaiting(tag: parameter("tag")) { try await Task.sleep(for: .milliseconds(milliseconds)) }
            return try .json(["delayed": true])
        case ("slow-read", _), ("slow-download", _):
            // The server takes about a minute over either; the check cancels long before.
            try await whileWaiting(tag: parameter("tag")) { try await Task.sleep(for: .seconds(60)) }
            return .text("read")
        case ("drip", _), ("silent", _):
            // One byte a second, or nothing at all: only the caller's timeout ends it.
            try await Task.sleep(for: .seconds(120))
            return .status(200, body: Data(repeating: UInt8(ascii: "x"), count: 100))
        case ("keepalive", _) where segments.count == 2:
            // No connections here: every answer says connection 1, and the fault is the reset a wire reports.
            if segments[1] == "trailers" {
                return .status(200, headers: ["X-Connection": "1"], body: Data("kept".utf8))
            }
            guard segments[1] == "ok" else {
                return .failure(Self.failure(.connectionReset, "connection reset by peer"))
            }
            return .status(200, headers: ["X-Connection": "1"], body: Data("kept".utf8))
        case ("status-line", _) where segments.count == 2:
            // A stub answers with a status, not a line: the model answers as a wire transport must.
            guard !["empty-reason", "no-reason"].contains(segments[1]) else {
                return .status(200, body: Data("ok".utf8))
            }
            return .failure(Self.failure(.malformedResponse, "the server's status line is not valid HTTP/1.1"))
        case ("interim", _):
            return .status(200, headers: ["X-Final": "yes"], body: Data("final".utf8))
        case ("length-and-chunked", _):
            return .status(200, body: Data("hello".utf8))
        case ("gzip-bomb", _):
            return .status(200, headers: ["Content-Encoding": "gzip"], body: Data(count: 64))
        case ("reset-headers", _), ("reset-body", _), ("reset-upload", _):
            return .failure(Self.failure(.connectionReset, "connection reset by peer"))
        case ("short-body", _), ("bad-chunked", _), ("garbage-status", _), ("huge-header", _), ("chunked-cut", _),
            ("conflicting-length", _), ("header-flood", _):
            return .failure(Self.failure(.malformedResponse, "the server's reply to \(path) is not valid HTTP/1.1"))
        default:
            return .status(404)
        }
    }

    private func whileWaiting(tag: String?, _ operation: () async throws -> Void) async throws {
        guard let tag else { return try await operation() }
        let waiters = waiting.withLock { state in
            state.tags.insert(tag)
            return state.waiters.removeValue(forKey: tag) ?? []
        }
        for waiter in waiters { waiter.resume() }
        defer { _ = waiting.withLock { $0.tags.remove(tag) } }
        try await operation()
    }

    private static func failure(_ kind: TransportError.Kind, _ message: String) -> RestingError {
        .transportFailed(TransportError(kind: kind, code: 0, domain: "ConformanceModel", message: message))
    }

    /// `{"compressed":"gzip"}` and `{"compressed":"deflate"}`, coded as the server sends them.
    private static let compressed = [
        "gzip": "H4sIAAAAAAAAA6tWSs7PLShKLS5OTVGyUkqvyixQqgUAYuPnVhUAAAA=",
        "deflate": "eJyrVkrOzy0oSi0uTk1RslJKSU3LSSxJVaoFAG9sCMU=",
    ]
}

extension Echo {
    init(_ received: StubHTTPClient.ReceivedRequest, path: String, query: [[String]]) {
        let body = received.body
        self.init(
            method: received.request.method.rawValue, path: path, query: query,
            headers: received.request.headers.map { [$0.name, $0.value] }, bodyLength: body.count,
            bodySHA256: SHA256.hex(body), body: body.count <= 65_536 ? String(decoding: body, as: UTF8.self) : nil)
    }
}
