import Foundation
import RestingConnections
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import Testing

/// `CurlClient`'s connection control against loopback servers: names that resolve where the app says (TLS and SNI
/// intact), the Happy Eyeballs delay before a name's other address family, origins routed to another port, the address
/// connections leave from, keep-alive probes, idle connections dropped after their time or past the cache's size, and
/// a DNS-over-HTTPS resolver with its cache lifetime.
@Suite("CurlClient connection control", .timeLimit(.minutes(5)))
struct ConnectionControlTests {
    let server: LocalServer

    init() async throws { server = try await LocalServer.sharedConformanceServer.value }

    private static func client(_ configure: (inout CurlConfiguration) -> Void) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.driverCount = 1
        configure(&configuration)
        return try CurlClient(configuration: configuration)
    }

    private static func get(_ transport: CurlClient, _ url: String) async throws -> HTTPDataResponse {
        try await transport.send(HTTPRequest(method: .get, url: try #require(URL(string: url)))) { _ in }
    }

    /// The `Host` field the conformance server's `/echo` received.
    private static func host(of response: HTTPDataResponse) throws -> String? {
        struct Echo: Decodable { let headers: [[String]] }
        let echo = try JSONDecoder().decode(Echo.self, from: response.body.bytes)
        return echo.headers.first { $0.first?.lowercased() == "host" }?.last
    }

    @Test("a host override makes a real name reach a loopback server, its certificate checked against that name")
    func hostOverrideKeepsTLS() async throws {
        let fixtures = try await TLSFixtures.shared.value
        // A certificate for wrong.example only, signed by the test CA.
        let named = try await fixtures.server(certificate: "mismatched")
        let transport = try Self.client { configuration in
            configuration.tls.caFile = fixtures.path("ca.pem")
            configuration.connectTimeout = TLSTests.patientHandshake
            configuration.connections.hostOverrides = [
                HostOverride(host: "wrong.example", port: named.port, addresses: ["127.0.0.1"]),
                HostOverride(host: "other.example", port: named.port, addresses: ["127.0.0.1"]),
            ]
        }
        let response = try await Self.get(transport, "https://wrong.example:\(named.port)/echo")
        #expect(response.status == 200)
        #expect(try Self.host(of: response) == "wrong.example:\(named.port)")
        // The same server under a name its certificate does not carry: verification is still on.
        do {
            _ = try await Self.get(transport, "https://other.example:\(named.port)/echo")
            Issue.record("a certificate for another name must be refused")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .tlsFailed, "\(failure)")
        }
    }

    @Test("Happy Eyeballs: a silent IPv6 address holds the IPv4 one back for the delay, and no longer")
    func happyEyeballsDelay() async throws {
        // dual.test is [::1], where a listener never answers, then 127.0.0.1, where the server does.
        let silent = try UnresponsiveListener(ipv6LoopbackPort: server.port)
        let url = "http://dual.test:\(silent.port)/echo"
        func client(delay: Duration) throws -> CurlClient {
            try Self.client { configuration in
                configuration.connections.hostOverrides = [
                    HostOverride(host: "dual.test", port: server.port, addresses: ["::1", "127.0.0.1"])
                ]
                configuration.connections.happyEyeballsDelay = delay
                configuration.connectTimeout = .seconds(2)
            }
        }
        // A short head start: IPv4 is tried while IPv6 is still silent, and answers.
        #expect(try await Self.get(try client(delay: .milliseconds(50)), url).status == 200)
        // A head start longer than the connect timeout: IPv4 is never tried.
        do {
            _ = try await Self.get(try client(delay: .seconds(60)), url)
            Issue.record("the IPv4 address was tried before the IPv6 one's head start was over")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .timedOut, "\(failure)")
        }
    }

    @Test("a connection route sends an origin's connections to another host and port; the request keeps its name")
    func connectionRoute() async throws {
        let transport = try Self.client { configuration in
            configuration.connections.connectionRoutes = [
                ConnectionRoute(host: "api.example", port: 80, to: "127.0.0.1", port: server.port)
            ]
        }
        let response = try await Self.get(transport, "http://api.example/echo")
        #expect(response.status == 200)
        #expect(try Self.host(of: response) == "api.example")
    }

    #if os(Linux)
    @Test("connections leave from the local address asked for (127.0.0.2, on Linux's loopback network)")
    func localAddress() async throws {
        let transport = try Self.client { $0.connections.localEndpoint = .address("127.0.0.2") }
        let response = try await Self.get(transport, "http://127.0.0.1:\(server.port)/keepalive/ok")
        #expect(response.headers["X-Peer"]?.hasPrefix("127.0.0.2:") == true, "\(response.headers)")
    }

    @Test("with keep-alive, an idle connection's socket runs the keep-alive timer; without it, no timer")
    func tcpKeepAlive() async throws {
        for keepAlive in [TCPKeepAlive(idle: .seconds(45), interval: .seconds(5)), nil] {
            let transport = try Self.client { $0.connections.tcpKeepAlive = keepAlive }
            let response = try await Self.get(transport, "http://127.0.0.1:\(server.port)/keepalive/ok")
            let peer = try #require(response.headers["X-Peer"]?.split(separator: ":").last.flatMap { Int($0) })
            // The client's socket stays open, idle, in libcurl's cache: /proc/net/tcp shows its timer.
            let timer = try #require(try Self.tcpTimer(localPort: peer, remotePort: server.port))
            if keepAlive != nil {
                #expect(timer.kind == 2, "timer 2 is keep-alive")
                #expect(timer.seconds <= 45)
            } else {
                #expect(timer.kind == 0, "no timer runs on an idle socket without keep-alive")
            }
            await transport.shutdown(gracePeriod: nil)
        }
    }

    /// The timer of the IPv4 TCP socket from `localPort` to `remotePort`: its kind (0 none, 1 retransmit, 2
    /// keep-alive) and the seconds until it fires.
    private static func tcpTimer(localPort: Int, remotePort: Int) throws -> (kind: Int, seconds: Int)? {
        // Read to its end: a /proc file reports no size, and a table of thousands of sockets spans many reads.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp"))
        defer { try? file.close() }
        var bytes = Data()
        while let chunk = try file.read(upToCount: 1 << 16), !chunk.isEmpty { bytes.append(chunk) }
        let table = String(decoding: bytes, as: UTF8.self)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 5, fields[1].hasSuffix(String(format: ":%04X", localPort)),
                fields[2].hasSuffix(String(format: ":%04X", remotePort))
            else { continue }
            let timer = fields[5].split(separator: ":")
            guard timer.count == 2, let kind = Int(timer[0], radix: 16), let jiffies = Int(timer[1], radix: 16) else {
                return nil
            }
            return (kind, jiffies / 100)
        }
        return nil
    }
    #endif

    @Test("a connection idle longer than the idle timeout is not reused; within it, it is")
    func idleConnectionTimeout() async throws {
        for timeout in [Duration.seconds(1), nil] {
            let transport = try Self.client { $0.connections.idleConnectionTimeout = timeout }
            let url = "http://127.0.0.1:\(server.port)/keepalive/ok"
            let first = try await Self.get(transport, url).headers["X-Connection"]
            // The idle time under test, longer than the one-second timeout.
            try await Task.sleep(for: .milliseconds(2100))
            let second = try await Self.get(transport, url).headers["X-Connection"]
            #expect((first == second) == (timeout == nil), "timeout \(String(describing: timeout))")
            await transport.shutdown(gracePeriod: nil)
        }
    }

    @Test("past the most idle connections kept, the oldest is closed: a third call to the first origin reconnects")
    func maximumIdleConnections() async throws {
        for maximum in [1, nil] {
            let transport = try Self.client { $0.connections.maximumIdleConnections = maximum }
            // Two names for the one server: two origins, two connections.
            let first = try await Self.get(transport, "http://127.0.0.1:\(server.port)/keepalive/ok")
            _ = try await Self.get(transport, "http://localhost:\(server.port)/keepalive/ok")
            let third = try await Self.get(transport, "http://127.0.0.1:\(server.port)/keepalive/ok")
            let reused = first.headers["X-Connection"] == third.headers["X-Connection"]
            #expect(reused == (maximum == nil), "maximum \(String(describing: maximum))")
            await transport.shutdown(gracePeriod: nil)
        }
    }

    @Test("a DNS-over-HTTPS resolver answers every lookup; the DNS cache's lifetime decides how often it is asked")
    func dnsOverHTTPS() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let resolver = try await fixtures.server()
        for lifetime in [Duration.zero, nil] {
            // A name of this round's own, so that the resolver's count is this round's.
            let name = "doh-\(lifetime == nil ? "cached" : "uncached")-\(UInt32.random(in: 0...UInt32.max)).example"
            let transport = try Self.client { configuration in
                configuration.tls.caFile = fixtures.path("ca.pem")
                configuration.connections.dnsOverHTTPS = "https://127.0.0.1:\(resolver.port)/dns-query"
                configuration.connections.dnsCacheLifetime = lifetime
            }
            // /echo closes its connection: each call opens a new one, and needs the name's address.
            for _ in 0..<2 {
                #expect(try await Self.get(transport, "http://\(name):\(server.port)/echo").status == 200)
            }
            let count = try await Self.get(
                transport, "https://127.0.0.1:\(resolver.port)/dns-count?name=\(name)&type=A")
            struct Count: Decodable { let count: Int }
            let asked = try JSONDecoder().decode(Count.self, from: count.body.bytes).count
            #expect(asked == (lifetime == nil ? 1 : 2), "lifetime \(String(describing: lifetime))")
            await transport.shutdown(gracePeriod: nil)
        }
    }

    @Test("a host, port or address libcurl's option syntax cannot carry is refused when the client is made")
    func malformedOptionsAreRefused() {
        let malformed: [(inout ConnectionOptions) -> Void] = [
            { $0.hostOverrides = [HostOverride(host: "a.example:1", port: 443, addresses: ["127.0.0.1"])] },
            { $0.hostOverrides = [HostOverride(host: "a.example", port: 443, addresses: ["not-an-ip"])] },
            { $0.hostOverrides = [HostOverride(host: "a.example", port: 443, addresses: [])] },
            { $0.connectionRoutes = [ConnectionRoute(host: "a.example", port: 70_000, to: "b.example", port: 80)] },
            { $0.connectionRoutes = [ConnectionRoute(host: "a.example\n", port: 80, to: "b.example", port: 80)] },
            { $0.localEndpoint = .address("127.0.0.1,evil") },
            { $0.localEndpoint = .interface("eth0!x") },
        ]
        for configure in malformed {
            var configuration = CurlConfiguration()
            configure(&configuration.connections)
            #expect(throws: RestingError.self) { _ = try CurlClient(configuration: configuration) }
        }
    }
}
