import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import RestingURLSession
import Testing

/// `warmConnections`: connections opened before the calls that need them, against the tests' nginx
/// (`nginx_h2.py`), which keeps its connections and names the one each request came on.
@Suite("Warming connections", .timeLimit(.minutes(5)))
struct ConnectionWarmingTests {
    struct Seen: Decodable, Sendable {
        let `protocol`: String
        let connection: Int
    }

    static let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/nginx_h2.py")

    /// `count` GETs of `/connection.json` at once: what each came over, and whether its connection was reused.
    static func calls(_ count: Int, to server: LocalServer, through transport: CurlClient) async throws
        -> [(seen: Seen, reused: Bool?)]
    {
        let url = try #require(URL(string: "\(server.baseURL)/connection.json"))
        return try await withThrowingTaskGroup(of: (Seen, Bool?).self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }
                    return (
                        try JSONDecoder().decode(Seen.self, from: response.body.bytes),
                        response.metrics?.reusedConnection
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("over HTTP/1.1 a client warmed with four connections serves its first four calls at once without connecting")
    func http1() async throws {
        let server = try await LocalServer.start(script: Self.script)
        defer { server.stop() }
        var configuration = CurlConfiguration()
        configuration.driverCount = 1
        let transport = try CurlClient(configuration: configuration)
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let warmed = try await client.warmConnections(4)
        #expect(warmed.answered == 4 && warmed.opened == 4 && warmed.failures.isEmpty, "\(warmed)")
        let calls = try await Self.calls(4, to: server, through: transport)
        #expect(calls.allSatisfy { $0.reused == true }, "\(calls.map(\.reused))")
        #expect(calls.allSatisfy { $0.seen.protocol == "HTTP/1.1" })
        // A cold client's first call connects: what the warm-up saved.
        let cold = try await Self.calls(1, to: server, through: try CurlClient(configuration: configuration))
        #expect(cold.map(\.reused) == [false])
    }

    @Test("the warm-up's connections are spread over the driver threads, as calls are; each keeps its own")
    func spreadOverDrivers() async throws {
        let server = try await LocalServer.start(script: Self.script)
        defer { server.stop() }
        var configuration = CurlConfiguration()
        configuration.driverCount = 2
        let transport = try CurlClient(configuration: configuration)
        let warmed = try await transport.warmConnections(6, to: try #require(URL(string: server.baseURL)))
        #expect(warmed.opened == 6, "\(warmed)")
        #expect(transport.drivers.startedTransfers == [3, 3])
    }

    @Test("over HTTP/2 the warm-up opens the origin's one connection, and the next calls multiplex on it")
    func http2() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await LocalServer.start(
            script: Self.script,
            arguments: ["--tls-cert", fixtures.path("server.pem"), "--tls-key", fixtures.path("server.key")])
        defer { server.stop() }
        var configuration = CurlConfiguration()
        configuration.tls.caFile = fixtures.path("ca.pem")
        configuration.driverCount = 2
        let transport = try CurlClient(configuration: configuration)
        let warmed = try await transport.warmConnections(4, to: try #require(URL(string: server.baseURL)))
        #expect(warmed.answered == 1 && warmed.opened == 1, "\(warmed)")
        let calls = try await Self.calls(8, to: server, through: transport)
        #expect(calls.allSatisfy { $0.reused == true && $0.seen.protocol == "HTTP/2.0" }, "\(calls.map(\.reused))")
        #expect(Set(calls.map(\.seen.connection)).count == 1)
    }

    @Test("a warm-up that cannot connect reports each failure and throws none: the calls will connect as usual")
    func refused() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let warmed = try await CurlClient().warmConnections(
            3, to: try #require(URL(string: "http://127.0.0.1:\(refusing.port)/")))
        #expect(warmed.answered == 0 && warmed.opened == 0)
        #expect(
            warmed.failures.map { error -> TransportError.Kind? in
                if case .transportFailed(let failure) = error { failure.kind } else { nil }
            } == Array(repeating: .connectionFailed, count: 3))
    }

    @Test("nothing to warm: a URL no call could use, a client shut down, and a transport that cannot say so")
    func refusals() async throws {
        let transport = try CurlClient()
        await #expect {
            try await transport.warmConnections(1, to: try #require(URL(string: "ftp://127.0.0.1/")))
        } throws: { error in
            if case RestingError.invalidURL = error { true } else { false }
        }
        #expect(
            try await transport.warmConnections(0, to: try #require(URL(string: "http://127.0.0.1:9/"))).answered == 0)
        await transport.shutdown()
        await #expect {
            try await transport.warmConnections(1, to: try #require(URL(string: "http://127.0.0.1:9/")))
        } throws: { error in
            if case RestingError.shutDown = error { true } else { false }
        }
        // URLSession opens a connection only for a task it runs, and reports none it reused (on Linux).
        await #expect {
            try await URLSessionClient().warmConnections(1, to: try #require(URL(string: "http://127.0.0.1:9/")))
        } throws: { error in
            if case RestingError.unsupported(let feature, let name) = error {
                feature == "warming connections" && name == "URLSessionClient"
            } else {
                false
            }
        }
    }
}
