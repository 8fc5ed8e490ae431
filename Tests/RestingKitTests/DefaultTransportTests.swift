import Foundation
import RestingKit
import RestingServerHarness
import Testing

#if os(Linux)
import RestingCurl
#endif

@Suite("The default transport")
struct DefaultTransportTests {
    #if os(Linux)
    @Test("on Linux it is one CurlClient for the process: FoundationNetworking would end it on a response's trailers")
    func curlOnLinux() {
        #expect(RestingClient.defaultTransport is CurlClient)
        #expect(RestingClient.defaultTransport as AnyObject === RestingClient.defaultTransport as AnyObject)
    }
    #else
    @Test("on Apple platforms it is URLSessionClient.shared")
    func urlSessionOnApplePlatforms() {
        #expect(RestingClient.defaultTransport as AnyObject === URLSessionClient.shared)
    }
    #endif

    @Test("a client made without a transport reads a chunked response with trailers, which never become headers")
    func survivesTrailers() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let client = RestingClient(baseUrl: server.baseURL)
        let response = try await client.send(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/trailers", encoding: .query)))
        #expect(response.body == Data("hello".utf8))
        #expect(response.headers["Location"] == nil && response.headers["X-Checksum"] == nil)
    }
}
