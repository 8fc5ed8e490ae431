import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import RestingWebSocket
import Testing

/// `CurlClient`'s WebSockets over TLS and through proxies: `wss` with the client's CA and pins, and the connection
/// tunnelled through a proxy that asks for credentials — which the origin never sees.
@Suite("CurlClient WebSockets over TLS and proxies", .timeLimit(.minutes(5)))
struct WebSocketSecureTests {
    static let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py")

    /// A wss server presenting `certificate`.
    private func secureServer(_ fixtures: TLSFixtures) async throws -> LocalServer {
        try await LocalServer.start(
            script: Self.script,
            arguments: ["--tls-cert", fixtures.path("server.pem"), "--tls-key", fixtures.path("server.key")])
    }

    /// The close timeout is a minute: these tests check the handshake's route, and under a sanitizer on two loaded
    /// cores the peer's close frame, relayed by a Python proxy, has taken longer than the default 5 s.
    private func open(_ base: String, _ path: String, on transport: CurlClient) async throws -> WebSocket {
        let client = RestingClient(baseUrl: base, httpClient: transport)
        return try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)),
            options: WebSocketOptions(closeTimeout: .seconds(60)))
    }

    private func echoes(_ socket: WebSocket) async throws {
        try await socket.send("over TLS")
        var messages = socket.makeAsyncIterator()
        #expect(try await messages.next() == .text("over TLS"))
        await socket.close()
        #expect(socket.closure != nil)
    }

    @Test("wss with the client's CA echoes, from a wss:// base URL as from an https:// one")
    func customAuthority() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await secureServer(fixtures)
        var configuration = CurlConfiguration()
        configuration.tls.caFile = fixtures.path("ca.pem")
        let transport = try CurlClient(configuration: configuration)
        try await echoes(try await open("wss://localhost:\(server.port)", "/echo", on: transport))
        try await echoes(try await open("https://localhost:\(server.port)", "/echo?deflate=1", on: transport))
    }

    @Test("wss fails as tlsFailed without the CA, and with a pin the server's key does not match")
    func verification() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await secureServer(fixtures)
        let unknownAuthority = try CurlClient(configuration: TLSTests.patientConfiguration())
        await #expect {
            _ = try await open("wss://localhost:\(server.port)", "/echo", on: unknownAuthority)
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .tlsFailed
        }
        var pinned = TLSTests.patientConfiguration()
        pinned.tls.caFile = fixtures.path("ca.pem")
        pinned.tls.pinnedPublicKeys = [try fixtures.pin("other")]
        await #expect {
            _ = try await open("wss://localhost:\(server.port)", "/echo", on: try CurlClient(configuration: pinned))
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .tlsFailed
        }
    }

    /// A WebSocket server, and a client configuration through a proxy asking for Basic credentials, answered with
    /// `password` (`proxy-secret` is the one it takes).
    private func throughProxy(password: String) async throws -> (
        proxy: LocalServer, origin: LocalServer, configuration: CurlConfiguration
    ) {
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", "basic"])
        var configuration = CurlConfiguration()
        configuration.proxy = .url("http://127.0.0.1:\(proxy.port)")
        configuration.proxyCredentials = .init(username: "proxyuser", password: password)
        return (proxy, try await LocalServer.start(script: Self.script), configuration)
    }

    @Test("through a proxy asking for Basic credentials, the socket is tunnelled; the origin never sees them")
    func tunnelledThroughAProxy() async throws {
        let (proxy, origin, configuration) = try await throughProxy(password: "proxy-secret")
        defer { withExtendedLifetime(proxy) {} }  // it runs while its LocalServer lives
        let socket = try await open(
            origin.baseURL, "/echo?greet=headers", on: try CurlClient(configuration: configuration))
        var messages = socket.makeAsyncIterator()
        guard case .text(let json)? = try await messages.next() else { throw RestingError.cancelled }
        let headers = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        #expect(headers["Upgrade"] == "websocket")
        #expect(!headers.keys.contains { $0.lowercased().contains("proxy") })
        try await echoes(socket)
    }

    @Test("a tunnel the proxy refuses with 407 fails as proxyRefused, and a retry link does not try it again")
    func refusedTunnelIsNotRetried() async throws {
        let (proxy, origin, configuration) = try await throughProxy(password: "wrong")
        let client = RestingClient(
            baseUrl: origin.baseURL, httpClient: try CurlClient(configuration: configuration),
            interceptors: [RetryInterceptor()])
        await #expect {
            _ = try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/echo")))
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .proxyRefused
        }
        let logURL = try #require(URL(string: "\(proxy.baseURL)/_proxy/log"))
        let log = try await CurlClient().send(HTTPRequest(method: .get, url: logURL)) { _ in }
        let seen = try JSONDecoder().decode(ProxyLog.self, from: try await log.body.collect(upTo: 1 << 16))
        // One attempt: libcurl's CONNECT asks which scheme, its second answers the challenge; both get 407 (a retried
        // attempt made it 4, then 6).
        #expect(seen.challenges == 2, "one attempt's two CONNECTs answered 407, never tried again")
    }

    struct ProxyLog: Decodable { let challenges: Int }

    @Test("the handshake carries the client's User-Agent, as every call does")
    func userAgent() async throws {
        let origin = try await LocalServer.start(script: Self.script)
        for (agent, expected) in [(String?.none, "RestingKit"), ("Scores/2.1", "Scores/2.1")] {
            var configuration = CurlConfiguration()
            if let agent { configuration.userAgent = agent }
            let socket = try await open(
                origin.baseURL, "/echo?greet=headers", on: try CurlClient(configuration: configuration))
            var messages = socket.makeAsyncIterator()
            guard case .text(let json)? = try await messages.next() else { throw RestingError.cancelled }
            let headers = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            #expect(headers["User-Agent"] == expected)
            await socket.close()
        }
    }

    @Test("a URL libcurl and Foundation read differently (http://127.1) is refused, as it is for every call")
    func urlAgreement() async throws {
        let origin = try await LocalServer.start(script: Self.script)
        await #expect {
            _ = try await open("http://127.1:\(origin.port)", "/echo", on: try CurlClient())
        } throws: { error in
            guard case RestingError.invalidURL = error else { return false }
            return true
        }
    }
}
