import Foundation
import RestingCore
import RestingServerHarness
import Testing

@testable import RestingCurl

#if canImport(Glibc)
import Glibc
#endif

/// Peers of their own for the hostile cases (a black hole on a peer's UDP port must not disturb the other suite):
/// h3_server.py over QUIC and TCP, and over TCP only, its UDP port free for a black hole of the test's own.
enum HostilePeers {
    static let script = LocalServer.repository.appendingPathComponent("Tests/HTTP3/h3_server.py")
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rk-h3x-\(UUID().uuidString)")
    static let quic = Task { try await start("quic") }
    static let tcp = Task { try await start("tcp", "--no-quic") }

    private static func start(_ name: String, _ arguments: String...) async throws -> LocalServer {
        try await LocalServer.start(
            script: script, arguments: ["--certificate", folder.appendingPathComponent(name).path] + arguments)
    }

    static func transport(
        _ version: HTTPVersion, trusting name: String, discovering: Bool = false,
        _ adjust: (inout CurlConfiguration) -> Void = { _ in }
    ) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.httpVersion = version
        configuration.discoversHTTP3 = discovering
        configuration.tls.caFile = folder.appendingPathComponent("\(name)/cert.pem").path
        adjust(&configuration)
        return try CurlClient(configuration: configuration)
    }
}

/// A UDP socket bound on a loopback port that never answers: QUIC's packets vanish, as on a network dropping UDP.
final class UDPBlackHole: @unchecked Sendable {
    let descriptor: Int32
    let port: Int

    init(port: Int = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Returns once a datagram has arrived (left for ``drain()`` to count), waiting on a thread of its own: what
    /// shows a QUIC handshake under way. Gives up after ten seconds.
    func firstDatagram() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let descriptor = descriptor
            Thread.detachNewThread {
                var byte: UInt8 = 0
                var limit = timeval(tv_sec: 10, tv_usec: 0)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                _ = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
                continuation.resume()
            }
        }
    }

    /// How many datagrams arrived (and were swallowed) so far.
    func drain() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { count += 1 }
        return count
    }

    deinit { close(descriptor) }
}

struct StillRunning: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "\(what) still running after \(limit) (a hang)" }
}

final class Gate<T: Sendable>: @unchecked Sendable {
    let lock = NSLock()
    var continuation: CheckedContinuation<T, any Error>?
    func resume(_ result: Result<T, any Error>) -> Bool {
        let continuation = lock.withLock { () -> CheckedContinuation<T, any Error>? in
            defer { self.continuation = nil }
            return self.continuation
        }
        guard let continuation else { return false }
        continuation.resume(with: result)
        return true
    }
}

extension CurlClient {
    func send(_ request: HTTPRequest) async throws -> HTTPDataResponse { try await send(request, progress: { _ in }) }
}

/// `body`'s outcome, or a failure once `limit` has passed — without waiting for a `body` that ignores cancellation.
func finishing<T: Sendable>(
    within limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let gate = Gate<T>()
    return try await withCheckedThrowingContinuation { continuation in
        gate.continuation = continuation
        let work = Task {
            do { _ = gate.resume(.success(try await body())) } catch { _ = gate.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: limit)
            if gate.resume(.failure(StillRunning(what: what, limit: limit))) { work.cancel() }
        }
    }
}

/// The outcome of an async call, caught.
func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension HTTPRequest {
    /// `GET <base>/get?tag=…&alt=…` (one `Alt-Svc` line per `alt`, `{port}` the server's).
    /// A GET of `/get` tagged `tag`, answered `delayed` (whole seconds) after it arrives, whose answer carries `alt`'s `Alt-Svc` lines.
    static func heard(
        _ base: String, tag: String, alt: [String] = [], timeout: Duration? = nil, delayed: Duration = .zero
    ) throws -> HTTPRequest {
        var components = URLComponents(string: base + "/get")
        components?.queryItems =
            [
                URLQueryItem(name: "tag", value: tag),
                URLQueryItem(name: "delay", value: "\(delayed.components.seconds * 1000)"),
            ]
            + alt.map { URLQueryItem(name: "alt", value: $0) }
        guard let url = components?.url else { throw URLError(.badURL) }
        return HTTPRequest(method: .get, url: url, timeout: timeout)
    }
}

extension HTTPRequest {
    /// A WebSocket handshake to `base` + `/ws`.
    static func webSocket(_ base: String) throws -> HTTPRequest {
        var request = HTTPRequest(method: .get, url: try #require(URL(string: base + "/ws")))
        request.upgrade = .webSocket
        request.headers = [
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        return request
    }
}

extension Result where Failure == any Error {
    /// Whether this is CurlClient's typed refusal of HTTP/3 (`RestingError.unsupported`).
    var isRefusalOfHTTP3: Bool {
        guard case .failure(RestingError.unsupported(let feature, "CurlClient")) = self else { return false }
        return feature.contains("HTTP/3")
    }
}

func heard(_ response: HTTPDataResponse) throws -> Heard {
    try JSONDecoder().decode(Heard.self, from: try #require(response.body.data))
}

/// What a hostile network or server does to HTTP/3 and Alt-Svc discovery: UDP dropped after HTTP/3 was confirmed,
/// probes under load, Alt-Svc over several lines, upgrades on an HTTP/3 client, black holes met by cancellation and
/// shutdown. Every wait is bounded by `finishing(within:)`, which fails rather than hangs.
@Suite("HTTP/3, hostile: fallback, probing, Alt-Svc lines, upgrades, black holes", .serialized)
struct HostileHTTP3Tests {
    static let advertise = #"h3=":{port}"; ma=3600"#

    static func origin(_ server: LocalServer) throws -> String {
        let url = try #require(URL(string: server.baseURL))
        return try #require(Origin(url)).description
    }

    /// Puts `origin` where a probe that won its race leaves it: HTTP/3 only from now on.
    static func confirm(_ services: AlternativeServices, _ server: LocalServer) throws {
        services.learn(
            nil, origin: try origin(server), host: "127.0.0.1", port: server.port, route: .probe, version: "3")
    }

    /// A discovering client of the TCP-only peer that has heard it advertise HTTP/3 (`tag`'s call) and holds it as
    /// confirmed: its next calls go HTTP/3 only, to a UDP port where nothing answers QUIC.
    static func confirmedTCPPeer(
        _ tag: String, _ adjust: (inout CurlConfiguration) -> Void = { _ in }
    ) async throws -> (server: LocalServer, transport: CurlClient, services: AlternativeServices, origin: String) {
        let server = try await HostilePeers.tcp.value
        let transport = try HostilePeers.transport(.http2OverTLS, trusting: "tcp", discovering: true, adjust)
        let services = try #require(transport.alternativeServices)
        let first = try heard(try await transport.send(try .heard(server.baseURL, tag: tag, alt: [advertise])))
        #expect(first.version == "2")
        try confirm(services, server)
        let origin = try origin(server)
        try #require(services.peek(origin) == .http3)
        return (server, transport, services, origin)
    }

    // MARK: fallback after confirmation

    @Test(
        "a confirmed HTTP/3 origin whose UDP starts being dropped: the call goes over TCP (connect timeout 3 s), and the origin is marked broken"
    )
    func blackHoleAfterConfirmationWithConnectTimeout() async throws {
        let (server, transport, services, origin) = try await Self.confirmedTCPPeer("bh1") {
            $0.connectTimeout = .seconds(3)
        }
        let hole = try UDPBlackHole(port: server.port)
        let request = try HTTPRequest.heard(server.baseURL, tag: "bh1")
        let second = try await finishing(within: .seconds(60), "a call to a black-holed QUIC origin") {
            await outcome { try heard(try await transport.send(request)) }
        }
        #expect(hole.drain() > 0, "QUIC was tried on the black hole")
        #expect(
            (try? second.get())?.version == "2",
            "a call that could not connect over QUIC is sent again over TCP; got \(String(reflecting: second))")
        #expect(services.peek(origin) != .http3, "the alternative that did not answer is marked broken")
        let third = try await finishing(within: .seconds(60), "the next call") {
            await outcome { try heard(try await transport.send(request)) }
        }
        #expect((try? third.get())?.version == "2", "the next call is not HTTP/3 only again: \(third)")
    }

    @Test(
        "a confirmed HTTP/3 origin whose UDP is dropped, a call with an 8 s timeout: its connection never came (within half of it), so it is sent again over TCP, and the origin is marked broken"
    )
    func blackHoleAfterConfirmationWithRequestTimeout() async throws {
        let (server, transport, services, origin) = try await Self.confirmedTCPPeer("bh2")
        let hole = try UDPBlackHole(port: server.port)
        defer { _ = hole.drain() }
        let request = try HTTPRequest.heard(server.baseURL, tag: "bh2", timeout: .seconds(8))
        var outcomes: [Result<Heard, any Error>] = []
        for _ in 0..<2 {
            outcomes.append(
                try await finishing(within: .seconds(60), "a call with an 8 s timeout") {
                    await outcome { try heard(try await transport.send(request)) }
                })
        }
        #expect(outcomes.map { (try? $0.get())?.version } == ["2", "2"], "\(outcomes)")
        #expect(services.peek(origin) != .http3)
    }

    @Test(
        "a call sent again over TCP has what is left of its timeout: 10 s, of which QUIC's connect timeout spent 2 s on a black hole, against an answer 9 s away over TCP, fails timed out"
    )
    func resentCallKeepsItsTimeout() async throws {
        let (server, transport, _, _) = try await Self.confirmedTCPPeer("bh3") { $0.connectTimeout = .seconds(2) }
        let hole = try UDPBlackHole(port: server.port)
        defer { _ = hole.drain() }
        let request = try HTTPRequest.heard(server.baseURL, tag: "bh3", timeout: .seconds(10), delayed: .seconds(9))
        let result = try await finishing(within: .seconds(60), "a call with a 10 s timeout") {
            await outcome { try heard(try await transport.send(request)) }
        }
        #expect {
            try result.get()
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .timedOut
        }
        let log = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: server.baseURL + "/log?tag=bh3"))))
        let entries = try JSONDecoder().decode([Logged].self, from: try #require(log.body.data))
        #expect(entries.count == 2, "the advertisement's call, then this one sent again over TCP: \(entries)")
    }

    @Test(
        "a streamed (single-pass) upload to a confirmed HTTP/3 origin whose UDP port is closed fails typed, not sent twice; the next goes over TCP"
    )
    func singlePassUploadAfterConfirmation() async throws {
        let (server, transport, services, origin) = try await Self.confirmedTCPPeer("sp")
        var results: [Result<String?, any Error>] = []
        for _ in 0..<2 {
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("hello ".utf8))
                continuation.yield(Data("over TCP".utf8))
                continuation.finish()
            }
            let url = try #require(URL(string: server.baseURL + "/echo?tag=sp"))
            let request = HTTPRequest(
                method: .post, url: url, headers: ["Content-Type": "text/plain"],
                body: .sequence(chunks, contentLength: 14))
            results.append(
                try await finishing(within: .seconds(30), "a streamed upload") {
                    await outcome { try await transport.send(request).headers["X-Version"] }
                })
        }
        // A single-pass body is the caller's to send again: the call fails with what QUIC met, and marks the origin.
        #expect(
            {
                guard case .failure(RestingError.transportFailed(let failure)) = results[0] else { return false }
                return failure.kind == .connectionFailed
            }(), "\(results[0])")
        #expect((try? results[1].get()) == "2", "\(results[1])")
        #expect(services.peek(origin) != .http3)
    }

    // MARK: probing

    @Test("the probe of a streamed-response call with a timeout opens a connection of its own, and QUIC wins it")
    func streamedResponseProbe() async throws {
        let server = try await HostilePeers.quic.value
        let transport = try HostilePeers.transport(.http2OverTLS, trusting: "quic", discovering: true)
        let services = try #require(transport.alternativeServices)
        let origin = try Self.origin(server)
        let first = try heard(try await transport.send(try .heard(server.baseURL, tag: "sr", alt: [Self.advertise])))
        #expect(first.version == "2")
        try #require(services.peek(origin) == .probe)
        var streamed = try HTTPRequest.heard(server.baseURL, tag: "sr", timeout: .seconds(20))
        streamed.responseStreaming = ResponseStreaming()
        let response = try await transport.send(streamed)
        let body = try await response.body.collect(upTo: 1 << 20)
        let second = try JSONDecoder().decode(Heard.self, from: body)
        #expect(second.version == "3", "the probe raced QUIC on a connection of its own: QUIC answers here")
        #expect(services.peek(origin) == .http3, "QUIC answers: the alternative is not marked broken")
        let third = try heard(try await transport.send(try .heard(server.baseURL, tag: "sr")))
        #expect(third.version == "3")
    }

    @Test("many calls at once after an advertisement: one probe, not one fresh connection (and race) per call")
    func probeStampede() async throws {
        let server = try await HostilePeers.quic.value
        let transport = try HostilePeers.transport(.http2OverTLS, trusting: "quic", discovering: true)
        let services = try #require(transport.alternativeServices)
        let origin = try Self.origin(server)
        _ = try await transport.send(try .heard(server.baseURL, tag: "herd-warm", alt: [Self.advertise]))
        try #require(services.peek(origin) == .probe)
        let request = try HTTPRequest.heard(server.baseURL, tag: "herd")
        let versions = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<12 { group.addTask { try heard(try await transport.send(request)).version } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let log = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: server.baseURL + "/log?tag=herd"))))
        let entries = try JSONDecoder().decode([Logged].self, from: try #require(log.body.data))
        let connections = Set(entries.map { "\($0.version):\($0.client)" })
        #expect(
            connections.count <= 2,
            "12 calls rode on \(connections.count) connections (\(connections.sorted())); versions \(versions)")
        #expect(services.peek(origin) == .http3, "QUIC answered: HTTP/3 from now on")
    }

    // MARK: Alt-Svc parsing, on the wire

    @Test("Alt-Svc sent as two field lines (h2 first, then h3): the h3 alternative is heard")
    func twoFieldLines() async throws {
        let server = try await HostilePeers.tcp.value
        let transport = try HostilePeers.transport(.http2OverTLS, trusting: "tcp", discovering: true)
        let services = try #require(transport.alternativeServices)
        let response = try await transport.send(
            try .heard(server.baseURL, tag: "lines", alt: [#"h2=":{port}"; ma=3600"#, Self.advertise]))
        #expect(response.headers.values(for: "Alt-Svc").count == 2)
        #expect(services.route(to: try Self.origin(server)) == .probe, "RFC 9110 §5.3: the lines are one list")
    }

    // MARK: HTTP/3 only, never over TCP

    @Test("a WebSocket request asking for HTTP/3 only is not sent over TCP")
    func webSocketHTTP3OnlyRequest() async throws {
        let server = try await HostilePeers.tcp.value
        let transport = try HostilePeers.transport(.http2OverTLS, trusting: "tcp")
        var handshake = try HTTPRequest.webSocket(server.baseURL)
        handshake.attributes.httpVersion = .http3Only
        let request = handshake
        let result = try await finishing(within: .seconds(30), "a WebSocket request for HTTP/3 only") {
            await outcome { try await transport.send(request).status }
        }
        #expect(result.isRefusalOfHTTP3, "\(result)")
    }

    @Test("a WebSocket on a client for HTTP/3 only is refused, typed: it is an HTTP/1.1 exchange over TCP")
    func webSocketHTTP3OnlyClient() async throws {
        let server = try await HostilePeers.quic.value
        let transport = try HostilePeers.transport(.http3Only, trusting: "quic")
        let request = try HTTPRequest.webSocket(server.baseURL)
        let result = try await finishing(within: .seconds(90), "a WebSocket on an HTTP/3-only client") {
            await outcome { try await transport.send(request).status }
        }
        #expect(result.isRefusalOfHTTP3, "\(result)")
        transport.upgrades.closeAll()
    }

    @Test("a WebSocket on a client for HTTP/3 with fallback (QUIC raced against TCP), to a server speaking both")
    func webSocketRacingClient() async throws {
        let server = try await HostilePeers.quic.value
        let transport = try HostilePeers.transport(.http3, trusting: "quic")
        let request = try HTTPRequest.webSocket(server.baseURL)
        let result = try await finishing(within: .seconds(90), "a WebSocket on an HTTP/3 client") {
            await outcome { try await transport.send(request).status }
        }
        // The peer's app takes no WebSocket: an HTTP/1.1 answer is what the handshake over TCP gets.
        #expect((try? result.get()) != nil, "the handshake goes over TCP (HTTP/1.1) as it must: \(result)")
        transport.upgrades.closeAll()
    }

    // MARK: black holes, cancellation, shutdown

    @Test("HTTP/3 only against a black hole, connect timeout 2 s: fails typed, as a connection that did not come")
    func http3OnlyBlackHole() async throws {
        _ = try await HostilePeers.quic.value  // its certificate, which the client trusts
        let hole = try UDPBlackHole()
        let transport = try HostilePeers.transport(.http3Only, trusting: "quic") { $0.connectTimeout = .seconds(2) }
        let url = try #require(URL(string: "https://127.0.0.1:\(hole.port)/get"))
        let result = try await finishing(within: .seconds(30), "an HTTP/3-only call to a black hole") {
            await outcome { try await transport.send(HTTPRequest(method: .get, url: url)).status }
        }
        #expect(hole.drain() > 0)
        #expect {
            try result.get()
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .connectionFailed || failure.kind == .timedOut
        }
    }

    /// An HTTP/3-only call whose QUIC handshake is under way, to a black hole: its first packet has arrived.
    static func handshakeWithABlackHole() async throws -> (
        UDPBlackHole, CurlClient, Task<Result<Int, any Error>, Never>
    ) {
        _ = try await HostilePeers.quic.value  // its certificate, which the client trusts
        let hole = try UDPBlackHole()
        let transport = try HostilePeers.transport(.http3Only, trusting: "quic")
        let url = try #require(URL(string: "https://127.0.0.1:\(hole.port)/get"))
        let call = Task { await outcome { try await transport.send(HTTPRequest(method: .get, url: url)).status } }
        await hole.firstDatagram()
        return (hole, transport, call)
    }

    @Test("cancelling a call mid-QUIC-handshake (black hole) ends it, cancelled, before the handshake's timeout")
    func cancelMidHandshake() async throws {
        let (hole, _, call) = try await Self.handshakeWithABlackHole()
        defer { _ = hole.drain() }
        call.cancel()
        let result = try await finishing(within: .seconds(8), "a cancelled QUIC handshake (its timeout is 10 s)") {
            await call.value
        }
        #expect(throws: RestingError.cancelled) { try result.get() }
    }

    @Test("shutdown(gracePeriod: 200 ms) while a QUIC connect to a black hole is pending returns before its timeout")
    func shutdownMidHandshake() async throws {
        let (hole, transport, call) = try await Self.handshakeWithABlackHole()
        defer { _ = hole.drain() }
        try await finishing(within: .seconds(8), "shutdown during a QUIC handshake (its timeout is 10 s)") {
            await transport.shutdown(gracePeriod: .milliseconds(200))
        }
        let result = try await finishing(within: .seconds(10), "the call after shutdown") { await call.value }
        #expect(throws: (any Error).self) { try result.get() }
    }
}
