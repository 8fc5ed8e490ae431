import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import Testing

/// What `send` and `perform` return carries the fields that came after the body, as the transport's response does.
@Suite("A decoded response's trailers", .timeLimit(.minutes(2)))
struct DecodedResponseTrailersTests {
    @Test("a chunked body's trailer fields are on the decoded response, apart from its headers")
    func trailersReachTheDecodedResponse() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let client = RestingClient(baseUrl: server.baseURL, httpClient: try CurlClient())
        let trailing = Endpoint<Nothing, Data>(.get, "/trailers")
        let sent = try await client.send(RestingRequest(endpoint: trailing))
        let performed = try await client.perform(RestingRequest(endpoint: trailing)).value
        for response in [sent, performed] {
            #expect(response.body == Data("hello".utf8))
            #expect(response.trailers["X-Checksum"] == "abc")
            #expect(response.headers["X-Checksum"] == nil, "never merged into the head's fields")
        }
    }
}
