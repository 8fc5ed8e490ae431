import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import Testing

/// `CurlClient`'s WebSockets over TLS and through proxies: `wss` with the client's CA and pins, and the connection
/// tunnelled through a proxy that asks for credentials — which the origin never sees.
@Suite("CurlClient WebSockets over TLS and proxies", .timeLimit(.minutes(2)))
struct WebSocketSecureTests {
    static let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py")

    /// A wss server presenting `certificate`.
    private func secureServer(_ fixtures: TLSFixtures) async throws -> LocalServer {
        try await LocalServer.start(
            script: Self.script,
            arguments: ["--tls-cert", fixtures.path("server.pem"), "--tls-key", fixtures.path("server.key")])
    }

    private func open(_ base: String, _ path: String, on transport: CurlClient) async throws -> WebSocket {
        let client = RestingClient(baseUrl: base, httpClient: transport)
        return try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)))
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
        await #expect {
            _ = try await open("wss://localhost:\(server.port)", "/echo", on: try CurlClient())
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .tlsFailed
        }
        var pinned = CurlConfiguration()
        pinned.tls.caFile = fixtures.path("ca.pem")
        pinned.tls.pinnedPublicKeys = [try fixtures.pin("other")]
        await #expect {
            _ = try await open("wss://localhost:\(server.port)", "/echo", on: try CurlClient(configuration: pinned))
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .tlsFailed
        }
    }

    @Test("through a proxy asking for Basic credentials, the socket is tunnelled; the origin never sees them")
    func tunnelledThroughAProxy() async throws {
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", "basic"])
        let origin = try await LocalServer.start(script: Self.script)
        var configuration = CurlConfiguration()
        configuration.proxy = .url("http://127.0.0.1:\(proxy.port)")
        configuration.proxyCredentials = .init(username: "proxyuser", password: "proxy-secret")
        let socket = try await open(
            origin.baseURL, "/echo?greet=headers", on: try CurlClient(configuration: configuration))
        var messages = socket.makeAsyncIterator()
        guard case .text(let json)? = try await messages.next() else { throw RestingError.cancelled }
        let headers = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        #expect(headers["Upgrade"] == "websocket")
        #expect(!headers.keys.contains { $0.lowercased().contains("proxy") })
        try await echoes(socket)
    }
}
