import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingTransportConformance
import Testing

/// `CurlConfiguration.Proxy.environment`: the variables curl, Go, Python and every command-line tool read, with curl's
/// rules — `http_proxy` in lower case only (an upper-case `HTTP_PROXY` can be set by a CGI request's `Proxy` header),
/// `https_proxy` and `all_proxy` in either case, and `no_proxy` naming domains (with their subdomains), addresses and
/// CIDR ranges. Each case runs in a process of its own (the CrashProbe), which alone sees its variables.
@Suite("CurlClient proxy from the environment", .timeLimit(.minutes(5)))
struct ProxyEnvironmentTests {
    /// Whether a GET went through the proxy, and what it ended with ("200", "failed connectionFailed", …).
    struct Outcome: Equatable, CustomStringConvertible {
        let proxied: Bool
        let result: String
        var description: String { "\(proxied ? "proxied" : "direct"), \(result)" }
    }

    let origin: LocalServer
    let proxy: LocalServer
    let fixtures: TLSFixtures
    let secureOrigin: LocalServer

    init() async throws {
        origin = try await LocalServer.sharedConformanceServer.value
        proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", "basic"])
        fixtures = try await TLSFixtures.shared.value
        secureOrigin = try await fixtures.server()
    }

    /// The proxy, with the credentials `auth_proxy.py` asks for in its URL, as the variables usually carry them.
    private var proxyURL: String { "http://proxyuser:proxy-secret@127.0.0.1:\(proxy.port)" }

    /// Runs the probe's GET of `url` with `variables` as the only proxy variables of its environment.
    private func get(_ url: String, with variables: [String: String]) async throws -> Outcome {
        let proxyNames = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"]
        var environment = ProcessInfo.processInfo.environment.filter { !proxyNames.contains($0.key.lowercased()) }
        environment.merge(variables) { $1 }
        let before = try await acceptedByProxy()
        let lines = try await Probe.run(
            ["proxy-get", fixtures.path("ca.pem"), "environment", "none", url], killAfter: nil, environment: environment
        )
        let result = try #require(lines.last?.split(separator: " ", maxSplits: 1).last.map(String.init), "\(lines)")
        return Outcome(proxied: try await acceptedByProxy() > before, result: result)
    }

    /// How many requests the proxy has let through.
    private func acceptedByProxy() async throws -> Int {
        struct Log: Decodable { let accepted: [String] }
        let url = try #require(URL(string: "http://127.0.0.1:\(proxy.port)/_proxy/log"))
        let response = try await CurlClient().send(HTTPRequest(method: .get, url: url)) { _ in }
        return try JSONDecoder().decode(Log.self, from: response.body.bytes).accepted.count
    }

    @Test("http_proxy carries http URLs; an upper-case HTTP_PROXY alone is ignored, as curl ignores it")
    func httpProxy() async throws {
        let url = "http://127.0.0.1:\(origin.port)/echo"
        #expect(try await get(url, with: ["http_proxy": proxyURL]) == Outcome(proxied: true, result: "200"))
        #expect(try await get(url, with: ["HTTP_PROXY": proxyURL]) == Outcome(proxied: false, result: "200"))
        #expect(try await get(url, with: ["https_proxy": proxyURL]) == Outcome(proxied: false, result: "200"))
    }

    @Test("https_proxy (either case) tunnels https URLs; all_proxy (either case) carries what no other variable does")
    func httpsAndAllProxy() async throws {
        let secure = "https://127.0.0.1:\(secureOrigin.port)/echo"
        let plain = "http://127.0.0.1:\(origin.port)/echo"
        #expect(try await get(secure, with: ["https_proxy": proxyURL]) == Outcome(proxied: true, result: "200"))
        #expect(try await get(secure, with: ["HTTPS_PROXY": proxyURL]) == Outcome(proxied: true, result: "200"))
        #expect(try await get(secure, with: ["http_proxy": proxyURL]) == Outcome(proxied: false, result: "200"))
        #expect(try await get(plain, with: ["ALL_PROXY": proxyURL]) == Outcome(proxied: true, result: "200"))
        #expect(try await get(secure, with: ["all_proxy": proxyURL]) == Outcome(proxied: true, result: "200"))
    }

    @Test(
        "no_proxy (either case) bypasses the proxy for a name and its subdomains, an address, a CIDR range, or *",
        arguments: [
            ("no_proxy", "localhost"), ("NO_PROXY", "localhost"), ("no_proxy", "example.test,.localhost"),
            ("no_proxy", "127.0.0.1"), ("no_proxy", "127.0.0.0/8"), ("no_proxy", "*"),
        ])
    func noProxy(variable: String, value: String) async throws {
        // libcurl resolves localhost and its subdomains to loopback itself; the proxy would refuse the name.
        let url = "http://api.localhost:\(origin.port)/echo"
        let address = "http://127.0.0.1:\(origin.port)/echo"
        let names = value.contains("localhost") || value == "*"
        let outcome = try await get(names ? url : address, with: ["http_proxy": proxyURL, variable: value])
        #expect(outcome == Outcome(proxied: false, result: "200"))
    }

    @Test("a no_proxy entry that matches neither the name nor the address leaves the call to the proxy")
    func noProxyMismatch() async throws {
        let url = "http://127.0.0.1:\(origin.port)/echo"
        for value in ["localhost", "127.0.0.2", "10.0.0.0/8", "example.test"] {
            #expect(
                try await get(url, with: ["http_proxy": proxyURL, "no_proxy": value])
                    == Outcome(proxied: true, result: "200"), "\(value)")
        }
    }
}
