import Foundation
import RestingCore
import Testing

@testable import RestingCurl

/// The forms of a no-proxy entry other tools take reach libcurl in its own; one libcurl would match nothing with
/// fails when the client is made, never silently at every call.
@Suite("No-proxy entries")
struct NoProxyListTests {
    @Test("*.suffix, bracketed addresses and CIDR ranges are written in libcurl's form; blanks are dropped")
    func forms() throws {
        let written = try NoProxyList.curlForm([
            "*.corp.example", "[::1]", "[fd00::]/8", "localhost", ".internal", "10.0.0.0/8", " ", "*",
        ])
        #expect(written == ".corp.example,::1,fd00::/8,localhost,.internal,10.0.0.0/8,*")
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
}
