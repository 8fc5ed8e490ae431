import Foundation
import RestingConnections
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCurl

/// The forms of a no-proxy entry other tools take reach libcurl in its own; one libcurl would match nothing with
/// fails when the client is made, never silently at every call.
@Suite("No-proxy entries")
struct NoProxyListTests {
    @Test("*.suffix, bracketed addresses and CIDR ranges are written in libcurl's form; blanks are dropped")
    func forms() throws {
        let written = try NoProxyList.curlForm([
            "*.corp.example", "[::1]", "[fd00::]/8", "localhost", ".internal", "10.0.0.0/8", " ",
        ])
        #expect(written == ".corp.example,::1,fd00::/8,localhost,.internal,10.0.0.0/8")
        #expect(try NoProxyList.curlForm(["example.invalid", "*"]) == "*", "libcurl takes * only alone")
        #expect(try NoProxyList.curlForm([]) == nil && NoProxyList.curlForm(["  "]) == nil)
    }

    @Test(
        "an entry libcurl would match nothing with fails the client's creation",
        arguments: ["host:8080", "a*b.example", "[name]"])
    func refused(_ entry: String) {
        var configuration = CurlConfiguration()
        configuration.proxy = .url("http://127.0.0.1:3128", noProxy: ["localhost", entry])
        #expect {
            _ = try CurlClient(configuration: configuration)
        } throws: { error in
            guard case RestingError.unsupported(let feature, _) = error else { return false }
            return feature.contains(entry)
        }
    }

    @Test(
        "a host the list excludes, as *.domain or with * among others, goes direct: the proxy never sees it",
        arguments: [
            ("*.test", "http://bypass.test:ORIGIN/status/200"),
            ("example.invalid,*", "http://127.0.0.1:ORIGIN/status/200"),
        ])
    func excludedHostsGoDirect(_ exception: String, _ target: String) async throws {
        let origin = try await LocalServer.sharedConformanceServer.value
        // A proxy asking for credentials it is never given: whatever reaches it is answered 407.
        let proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", "basic"])
        var configuration = CurlConfiguration()
        configuration.proxy = .url(
            "http://127.0.0.1:\(proxy.port)", noProxy: exception.split(separator: ",").map(String.init))
        configuration.connections.hostOverrides = [
            HostOverride(host: "bypass.test", port: origin.port, addresses: ["127.0.0.1"])
        ]
        let url = try #require(URL(string: target.replacingOccurrences(of: "ORIGIN", with: "\(origin.port)")))
        let response = try await CurlClient(configuration: configuration).send(HTTPRequest(method: .get, url: url)) {
            _ in
        }
        #expect(response.status == 200, "\(url) went to the proxy although noProxy excludes it with \(exception)")
    }
}
