import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

/// FoundationNetworking's libcurl follows the proxy environment variables on Linux whatever the session says, and
/// sends the credentials in them before the proxy asks. `URLSessionClient` keeps `CurlClient`'s rule — the
/// environment is ignored unless asked — by refusing such a call, typed, rather than sending it. Each case runs in a
/// process of its own (the CrashProbe), which alone sees its variables.
@Suite("URLSessionClient and the proxy environment", .timeLimit(.minutes(5)))
struct URLSessionProxyEnvironmentTests {
    let origin: LocalServer
    let proxy: LocalServer

    init() async throws {
        origin = try await LocalServer.sharedConformanceServer.value
        proxy = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/auth_proxy.py"),
            arguments: ["--mode", "basic"])
    }

    /// The probe's GET of `path` with `variables` as the only proxy variables of its environment: its last line, and
    /// how many requests reached the proxy meanwhile.
    private func get(_ path: String, follows: Bool, with variables: [String: String]) async throws
        -> (line: String, proxied: Int)
    {
        let proxyNames = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"]
        var environment = ProcessInfo.processInfo.environment.filter { !proxyNames.contains($0.key.lowercased()) }
        environment.merge(variables) { $1 }
        let before = try await requestsSeenByProxy()
        let url = "\(origin.baseURL)\(path)"
        let lines = try await Probe.run(
            ["urlsession-get", follows ? "true" : "false", url], killAfter: nil, environment: environment)
        return (try #require(lines.last, "\(lines)"), try await requestsSeenByProxy() - before)
    }

    /// What the proxy has seen: the 407s it sent and the requests it let through.
    private func requestsSeenByProxy() async throws -> Int {
        struct Log: Decodable {
            let challenges: Int
            let accepted: [String]
        }
        let url = try #require(URL(string: "http://127.0.0.1:\(proxy.port)/_proxy/log"))
        let response = try await URLSessionClient().send(HTTPRequest(method: .get, url: url)) { _ in }
        let log = try JSONDecoder().decode(Log.self, from: response.body.bytes)
        return log.challenges + log.accepted.count
    }

    @Test(
        "a proxy the environment names is not used unless asked: the call fails typed and the proxy sees nothing",
        arguments: ["http_proxy", "all_proxy", "ALL_PROXY"])
    func refusedUnlessAsked(_ variable: String) async throws {
        let proxyURL = "http://proxyuser:proxy-secret@127.0.0.1:\(proxy.port)"
        let (line, proxied) = try await get("/status/200", follows: false, with: [variable: proxyURL])
        #expect(line.contains("failed") && line.contains("is not supported by URLSessionClient"), "\(line)")
        #expect(line.contains(variable) && !line.contains("proxy-secret"), "\(line)")
        #expect(proxied == 0)
    }

    @Test("asked to follow the environment, the call goes through its proxy; no_proxy=* sends it direct")
    func followsWhenAsked() async throws {
        let proxyURL = "http://proxyuser:proxy-secret@127.0.0.1:\(proxy.port)"
        let followed = try await get("/status/200", follows: true, with: ["all_proxy": proxyURL])
        #expect(followed.line.hasSuffix(" 200") && followed.proxied > 0, "\(followed)")
        let direct = try await get("/status/200", follows: false, with: ["all_proxy": proxyURL, "no_proxy": "*"])
        #expect(direct.line.hasSuffix(" 200") && direct.proxied == 0, "\(direct)")
    }
}
