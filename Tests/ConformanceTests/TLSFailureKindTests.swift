import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import RestingURLSession
import Testing

/// A server certificate the client does not trust is the same failure on every transport: `.tlsFailed`.
@Suite("An untrusted certificate is a TLS failure on every transport", .timeLimit(.minutes(5)))
struct TLSFailureKindTests {
    @Test("#14 a certificate from an unknown CA fails with kind .tlsFailed", arguments: ["curl", "urlsession"])
    func untrustedCertificate(_ transport: String) async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await fixtures.server()
        let client: any HTTPClient = transport == "curl" ? try CurlClient() : URLSessionClient()
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/echo"))
        do {
            let response = try await client.send(HTTPRequest(method: .get, url: url)) { _ in }
            Issue.record("expected a TLS failure, got HTTP \(response.status)")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .tlsFailed, "\(failure)")
        }
    }
}
