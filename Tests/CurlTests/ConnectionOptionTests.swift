import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import Testing

/// What the conformance server's `/echo` says about how a request reached it.
private struct Arrival: Decodable {
    let target: String
    let path: String
}

@Suite("CurlClient proxies and Unix sockets", .timeLimit(.minutes(5)))
struct ConnectionOptionTests {
    let server: LocalServer

    init() async throws { server = try await LocalServer.sharedConformanceServer.value }

    private func arrival(_ url: String, _ configure: (inout CurlConfiguration) -> Void) async throws -> Arrival {
        var configuration = CurlConfiguration()
        configure(&configuration)
        let response = try await CurlClient(configuration: configuration).send(
            HTTPRequest(method: .get, url: try #require(URL(string: url)))
        ) { _ in }
        #expect(response.status == 200)
        return try JSONDecoder().decode(Arrival.self, from: response.body.bytes)
    }

    @Test("requests go through an HTTP proxy, in absolute form")
    func proxy() async throws {
        let arrived = try await arrival("http://origin.invalid/echo/via-proxy") {
            $0.proxy = .url("http://127.0.0.1:\(server.port)")
        }
        #expect(arrived.target == "http://origin.invalid/echo/via-proxy")
    }

    @Test("hosts listed in noProxy bypass the proxy")
    func noProxy() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let deadProxy = "http://127.0.0.1:\(refusing.port)"
        let arrived = try await arrival("http://127.0.0.1:\(server.port)/echo/direct") {
            $0.proxy = .url(deadProxy, noProxy: ["127.0.0.1"])
        }
        #expect(arrived.target == "/echo/direct")
    }

    @Test("a Unix domain socket replaces TCP")
    func unixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rk-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let unixServer = try await LocalServer.start(
            script: LocalServer.conformanceServerScript, arguments: ["--unix-socket", path])
        defer {
            unixServer.stop()
            try? FileManager.default.removeItem(atPath: path)
        }
        let arrived = try await arrival("http://localhost/echo/over-unix") { $0.unixSocketPath = path }
        #expect(arrived.path == "/echo/over-unix")
    }
}
