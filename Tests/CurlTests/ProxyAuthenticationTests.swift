import Foundation
import RestingConnections
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingTransportConformance
import Testing

/// `CurlClient` behind proxies that ask for credentials (`auth_proxy.py`): Basic and Digest chosen by the `407`, for
/// requests forwarded and tunnelled, SOCKS5 with names resolved here or by the proxy, the credentials kept from the
/// origin and from every printout, and the hosts that bypass the proxy.
@Suite("CurlClient proxy authentication", .timeLimit(.minutes(5)))
struct ProxyAuthenticationTests {
    let origin: LocalServer

    init() async throws { origin = try await LocalServer.sharedConformanceServer.value }

    private static let credentials = CurlConfiguration.ProxyCredentials(username: "proxyuser", password: "proxy-secret")

    /// What `auth_proxy.py` saw.
    private struct ProxyLog: Decodable {
        struct SOCKSConnect: Decodable {
            let type: String
            let host: String
        }
        let challenges: Int
        let accepted: [String]
        let socks: [SOCKSConnect]
    }

    private static func proxy(_ mode: String) async throws -> LocalServer {
        try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", mode])
    }

    private static func log(of proxy: LocalServer) async throws -> ProxyLog {
        let response = try await CurlClient().send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(proxy.port)/_proxy/log")))
        ) { _ in }
        return try JSONDecoder().decode(ProxyLog.self, from: response.body.bytes)
    }

    private static func client(
        through proxy: String, credentials: CurlConfiguration.ProxyCredentials? = credentials,
        _ configure: (inout CurlConfiguration) -> Void = { _ in }
    ) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.proxy = .url(proxy)
        configuration.proxyCredentials = credentials
        configure(&configuration)
        return try CurlClient(configuration: configuration)
    }

    /// The header names the conformance server's `/echo` received, lowercased.
    private static func headerNames(of response: HTTPDataResponse) throws -> [String] {
        struct Echo: Decodable { let headers: [[String]] }
        return try JSONDecoder().decode(Echo.self, from: response.body.bytes).headers.compactMap {
            $0.first?.lowercased()
        }
    }

    /// A GET of the plain origin (forwarded) and of the TLS one (tunnelled) through `transport`: each answers 200, and
    /// no credential meant for the proxy reaches either.
    private func expectOriginsReached(through transport: CurlClient, secureOrigin: LocalServer) async throws {
        for url in ["http://127.0.0.1:\(origin.port)/echo", "https://127.0.0.1:\(secureOrigin.port)/echo"] {
            let response = try await transport.send(HTTPRequest(method: .get, url: try #require(URL(string: url)))) {
                _ in
            }
            #expect(response.status == 200, "\(url)")
            #expect(try !Self.headerNames(of: response).contains { $0.contains("authorization") }, "\(url)")
        }
    }

    @Test("a 407 with a Basic challenge is answered; the request then reaches its origin without the credentials")
    func basicForwarded() async throws {
        let proxy = try await Self.proxy("basic")
        let transport = try Self.client(through: "http://127.0.0.1:\(proxy.port)")
        let response = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo")))
        ) { _ in }
        #expect(response.status == 200)
        #expect(try !Self.headerNames(of: response).contains { $0.contains("authorization") })
        let log = try await Self.log(of: proxy)
        #expect(log.challenges >= 1, "the credentials went out only once the proxy asked")
        #expect(log.accepted == ["Basic"])
    }

    @Test("a Digest challenge is answered for a tunnel; the origin, behind TLS, never sees the credentials")
    func digestTunnelled() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let secureOrigin = try await fixtures.server()
        let proxy = try await Self.proxy("digest")
        let transport = try Self.client(through: "http://127.0.0.1:\(proxy.port)") {
            $0.tls.caFile = fixtures.path("ca.pem")
        }
        let response = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "https://127.0.0.1:\(secureOrigin.port)/echo")))
        ) { _ in }
        #expect(response.status == 200)
        #expect(try !Self.headerNames(of: response).contains { $0.contains("authorization") })
        #expect(try await Self.log(of: proxy).accepted == ["Digest"])
    }

    @Test("a wrong proxy password ends a forwarded call with the proxy's 407, and a tunnelled one with a typed error")
    func wrongPassword() async throws {
        let proxy = try await Self.proxy("digest")
        let wrong = CurlConfiguration.ProxyCredentials(username: "proxyuser", password: "wrong")
        let transport = try Self.client(through: "http://127.0.0.1:\(proxy.port)", credentials: wrong)
        let forwarded = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo")))
        ) { _ in }
        #expect(forwarded.status == 407)
        do {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "https://127.0.0.1:\(origin.port)/echo")))
            ) { _ in }
            Issue.record("a tunnel the proxy refuses cannot carry the request")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .proxyRefused && failure.message.contains("407"), "\(failure)")
        }
        #expect(try await Self.log(of: proxy).accepted.isEmpty)
    }

    @Test("through SOCKS5h and SOCKS4a the proxy resolves the name; through SOCKS5 and SOCKS4 the client does")
    func socks() async throws {
        // The origin's name is left to the proxy or resolved here by a host override; SOCKS4's user id is the user name.
        let proxy = try await Self.proxy("socks")
        let name = "origin.test"
        let schemes = ["socks5h", "socks5", "socks4a", "socks4"]
        for scheme in schemes {
            let transport = try Self.client(through: "\(scheme)://127.0.0.1:\(proxy.port)") { configuration in
                configuration.connections.hostOverrides = [
                    HostOverride(host: name, port: origin.port, addresses: ["127.0.0.1"])
                ]
            }
            let response = try await transport.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "http://\(name):\(origin.port)/echo")))
            ) { _ in }
            #expect(response.status == 200, "\(scheme)")
        }
        let log = try await Self.log(of: proxy)
        #expect(log.socks.map(\.type) == ["domain", "ipv4", "domain", "ipv4"])
        #expect(log.socks.map(\.host) == [name, "127.0.0.1", name, "127.0.0.1"])
        #expect(log.accepted == ["SOCKS5", "SOCKS5", "SOCKS4", "SOCKS4"])
    }

    @Test("a SOCKS4 proxy that refuses the user id ends the call with a typed failure, before anything is sent")
    func socks4Refused() async throws {
        let proxy = try await Self.proxy("socks")
        let transport = try Self.client(
            through: "socks4a://127.0.0.1:\(proxy.port)",
            credentials: CurlConfiguration.ProxyCredentials(username: "someone-else", password: ""))
        do {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "http://origin.test:\(origin.port)/echo")))
            ) { _ in }
            Issue.record("a refused SOCKS4 request cannot reach the origin")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .proxyRefused, "\(failure)")
        }
        #expect(try await Self.log(of: proxy).accepted.isEmpty)
    }

    @Test("hosts in noProxy — a name, a .suffix, a CIDR range — bypass a proxy that would refuse them")
    func noProxyForms() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        for (exception, url) in [
            ("localhost", "http://localhost:\(origin.port)/echo"),
            (".test", "http://bypass.test:\(origin.port)/echo"),
            ("127.0.0.0/8", "http://127.0.0.1:\(origin.port)/echo"),
        ] {
            var configuration = CurlConfiguration()
            configuration.proxy = .url("http://127.0.0.1:\(refusing.port)", noProxy: [exception])
            configuration.connections.hostOverrides = [
                HostOverride(host: "bypass.test", port: origin.port, addresses: ["127.0.0.1"])
            ]
            let response = try await CurlClient(configuration: configuration).send(
                HTTPRequest(method: .get, url: try #require(URL(string: url)))
            ) { _ in }
            #expect(response.status == 200, "\(exception)")
        }
    }

    @Test(
        "real proxies — squid with Basic (over TLS too), with Digest, pproxy's SOCKS5h — carry forwarded and tunnelled calls",
        arguments: ["squid-basic", "squid-basic-tls", "squid-digest", "pproxy-socks5"])
    func realPeers(peer: String) async throws {
        let fixtures = try await TLSFixtures.shared.value
        let secureOrigin = try await fixtures.server()
        let tlsArguments = ["--tls-cert", fixtures.path("server.pem"), "--tls-key", fixtures.path("server.key")]
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/proxy_peers.py"),
            arguments: ["--peer", peer] + (peer.hasSuffix("-tls") ? tlsArguments : []))
        let scheme = peer.hasPrefix("pproxy") ? "socks5h" : peer.hasSuffix("-tls") ? "https" : "http"
        let transport = try Self.client(through: "\(scheme)://127.0.0.1:\(proxy.port)") {
            $0.tls.caFile = fixtures.path("ca.pem")
        }
        try await expectOriginsReached(through: transport, secureOrigin: secureOrigin)
        let wrong = try Self.client(
            through: "\(scheme)://127.0.0.1:\(proxy.port)",
            credentials: CurlConfiguration.ProxyCredentials(username: "proxyuser", password: "wrong")
        ) { $0.tls.caFile = fixtures.path("ca.pem") }
        do {
            let response = try await wrong.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo")))
            ) { _ in }
            #expect(response.status == 407, "a forwarded call gets the proxy's refusal as its response")
        } catch RestingError.transportFailed(let failure) {
            #expect(
                scheme == "socks5h" && failure.kind == .proxyRefused, "only SOCKS refuses without a status: \(failure)")
        }
    }

    @Test(
        "squid asking for NTLM: the client answers its challenge (NTLM only, no Basic offered); without credentials, 407"
    )
    func ntlmThroughSquid() async throws {
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/proxy_peers.py"),
            arguments: ["--peer", "squid-ntlm"])
        let fixtures = try await TLSFixtures.shared.value
        let secureOrigin = try await fixtures.server()
        let transport = try Self.client(through: "http://127.0.0.1:\(proxy.port)") {
            $0.tls.caFile = fixtures.path("ca.pem")
        }
        try await expectOriginsReached(through: transport, secureOrigin: secureOrigin)
        let anonymous = try Self.client(through: "http://127.0.0.1:\(proxy.port)", credentials: nil)
        let refused = try await anonymous.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo")))
        ) { _ in }
        #expect(refused.status == 407)
        #expect(refused.headers["Proxy-Authenticate"] == "NTLM")
    }

    @Test("squid asking for Negotiate: the client's Kerberos ticket answers it; with no ticket, the 407 stays")
    func negotiateThroughSquid() async throws {
        // A realm of the test's own (krb5kdc, a user with a ticket, the proxy's key); the client runs in a process of
        // its own, since GSS-API reads the realm and the ticket cache from the environment.
        let realm = FileManager.default.temporaryDirectory.appendingPathComponent("kerberos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: realm) }
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/proxy_peers.py"),
            arguments: ["--peer", "squid-negotiate", "--directory", realm.path])
        let fixtures = try await TLSFixtures.shared.value
        let secureOrigin = try await fixtures.server()
        let urls = ["http://127.0.0.1:\(origin.port)/echo", "https://127.0.0.1:\(secureOrigin.port)/echo"]
        // The proxy as its service principal (HTTP/localhost) names it.
        let proxyURL = "http://localhost:\(proxy.port)"
        func get(credentials: String, ticketCache: String) async throws -> [String] {
            var environment = ProcessInfo.processInfo.environment
            environment["KRB5_CONFIG"] = realm.appendingPathComponent("krb5.conf").path
            environment["KRB5CCNAME"] = "FILE:" + realm.appendingPathComponent(ticketCache).path
            return try await Probe.run(
                ["proxy-get", fixtures.path("ca.pem"), proxyURL, credentials] + urls, killAfter: nil,
                environment: environment)
        }
        #expect(try await get(credentials: "kerberos", ticketCache: "alice.ccache") == urls.map { "\($0) 200" })
        let withoutTicket = try await get(credentials: "kerberos", ticketCache: "nobody.ccache")
        #expect(withoutTicket.first == "\(urls[0]) 407", "a forwarded call gets the proxy's refusal")
        #expect(withoutTicket.last == "\(urls[1]) failed proxyRefused", "a tunnel fails typed")
        #expect(try await get(credentials: "none", ticketCache: "alice.ccache").first == "\(urls[0]) 407")
    }

    @Test(
        "mitmproxy inspecting TLS with --proxyauth: Basic from its 407; only its own authority vouches for the origin")
    func mitmproxyInspectingTLS() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let secureOrigin = try await fixtures.server()
        let confdir = FileManager.default.temporaryDirectory.appendingPathComponent("mitmproxy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: confdir) }
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/proxy_peers.py"),
            arguments: ["--peer", "mitmproxy", "--confdir", confdir.path, "--upstream-ca", fixtures.path("ca.pem")])
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let inspectingAuthority = confdir.appendingPathComponent("mitmproxy-ca-cert.pem").path
        let transport = try Self.client(through: proxyURL) { $0.tls.caFile = inspectingAuthority }
        try await expectOriginsReached(through: transport, secureOrigin: secureOrigin)
        // The certificate the client sees is the proxy's, not the origin's: the origin's own authority cannot vouch.
        let trustingOrigin = try Self.client(through: proxyURL) { configuration in
            configuration.tls.caFile = fixtures.path("ca.pem")
            configuration.connectTimeout = TLSTests.patientHandshake
        }
        do {
            _ = try await trustingOrigin.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "https://127.0.0.1:\(secureOrigin.port)/echo")))
            ) { _ in }
            Issue.record("a certificate the inspecting proxy made cannot pass for the origin's")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .tlsFailed, "\(failure)")
        }
        let wrong = try Self.client(
            through: proxyURL, credentials: CurlConfiguration.ProxyCredentials(username: "proxyuser", password: "wrong")
        )
        let refused = try await wrong.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo")))
        ) { _ in }
        #expect(refused.status == 407)
    }

    @Test("a request's own proxy route: through a proxy the client does not use, or direct past the client's")
    func perRequestRoute() async throws {
        let proxy = try await Self.proxy("basic")
        let refusing = try RefusingPort()
        defer { refusing.release() }
        // A client without a proxy, one request of which goes through one.
        let direct = try Self.client(through: "http://127.0.0.1:\(refusing.port)") { $0.proxy = .none }
        let url = try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo"))
        var routed = HTTPRequest(method: .get, url: url)
        routed.attributes.proxy = .url("http://127.0.0.1:\(proxy.port)")
        #expect(try await direct.send(routed) { _ in }.status == 200)
        #expect(try await direct.send(HTTPRequest(method: .get, url: url)) { _ in }.status == 200)
        #expect(try await Self.log(of: proxy).accepted == ["Basic"], "only the routed request went through the proxy")

        // A client whose proxy refuses every connection, one request of which goes direct.
        let proxied = try Self.client(through: "http://127.0.0.1:\(refusing.port)")
        var bypassing = HTTPRequest(method: .get, url: url)
        bypassing.attributes.proxy = .direct
        #expect(try await proxied.send(bypassing) { _ in }.status == 200)
        await #expect(throws: RestingError.self, "the next request is the client's again: through its proxy") {
            _ = try await proxied.send(HTTPRequest(method: .get, url: url)) { _ in }
        }
        #expect("\(ProxyRoute.url("http://user:secret@proxy.internal:3128"))".contains("secret") == false)
    }

    @Test("proxy passwords, in the credentials or in the proxy's URL, show in no print, dump or reflection")
    func passwordsAreHidden() {
        var configuration = CurlConfiguration()
        configuration.proxy = .url("http://proxyuser:url-secret@proxy.internal:3128", noProxy: ["localhost"])
        configuration.proxyCredentials = CurlConfiguration.ProxyCredentials(username: "u", password: "field-secret")
        var dumped = ""
        dump(configuration, to: &dumped)
        let shown = [dumped, "\(configuration)", String(reflecting: configuration), "\(configuration.proxy)"]
        for text in shown {
            #expect(!text.contains("url-secret") && !text.contains("field-secret"), "\(text)")
        }
        #expect("\(configuration.proxy)".contains("proxy.internal:3128"))
        #expect(
            "\(CurlConfiguration.ProxyCredentials.currentKerberosTicket)" == "ProxyCredentials.currentKerberosTicket")
    }
}
