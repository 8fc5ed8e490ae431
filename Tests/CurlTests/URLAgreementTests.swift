import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCurl

/// Foundation's parse of a URL decides everything above the transport (the credential boundary among it); libcurl
/// connects to its own parse of the string. Where the two disagree, the request is never sent.
@Suite("libcurl and Foundation read a URL alike, or it is refused")
struct URLAgreementTests {
    @Test(
        "a URL whose scheme, host or port libcurl reads otherwise is refused with invalidURL",
        arguments: [
            "http:/a.example/x", "http://0x7f.1/", "http://127.1/", "http://2130706433/",
            "http://a.example%40b.example/",
            "http://a.example:65536/", "http://user:s3cret@0x7f.1/",
        ])
    func disagreements(_ address: String) throws {
        let url = try #require(URL(string: address))
        #expect {
            try URLAgreement.check(url, url.absoluteString)
        } throws: { error in
            guard case RestingError.invalidURL(let shown, _) = error else { return false }
            return !shown.contains("s3cret")
        }
    }

    @Test(
        "spellings of the same origin agree: case, default ports, IPv6 brackets, zero compression and zones",
        arguments: [
            "https://API.Example.com/x", "http://a.example:80/", "https://a.example:443/", "http://[::1]:8080/",
            "http://[0:0:0:0:0:0:0:1]/", "http://[fe80::1%25eth0]/", "http://127.0.0.1:9/", "https://xn--mxacd.com/",
        ])
    func agreements(_ address: String) throws {
        let url = try #require(URL(string: address))
        try URLAgreement.check(url, url.absoluteString)
    }

    @Test("a driver remembers the origins that agreed, never one that did not")
    func remembered() throws {
        var agreement = URLAgreement()
        for _ in 0..<2 {
            try agreement.check(try #require(URL(string: "https://api.example.com/a?b=c")))
            #expect(throws: RestingError.self) { try agreement.check(try #require(URL(string: "http://127.1/"))) }
            #expect(throws: RestingError.self) { try agreement.check(try #require(URL(string: "http:/a.example/x"))) }
        }
        for index in 0..<200 { try agreement.check(try #require(URL(string: "https://\(index).example/"))) }
        #expect(throws: RestingError.self) { try agreement.check(try #require(URL(string: "http://0x7f.1/x"))) }
    }

    @Test("CurlClient refuses such a request before connecting, and sends the agreeing spelling of it")
    func throughTheTransport() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        await #expect {
            try await transport.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "http://127.1:\(server.port)/bytes/8")))
            ) { _ in }
        } throws: { isRestingError($0, "invalidURL") }
        let response = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "HTTP://127.0.0.1:\(server.port)/bytes/8")))
        ) { _ in }
        #expect(response.status == 200 && response.body.data?.count == 8)
        await transport.shutdown()
    }
}
