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

    @Test("the default transport's initialiser takes every parameter of RestingCore's but the transport, in order")
    func convenienceInitialiserKeepsUpWithTheCore() throws {
        /// The argument labels of `RestingClient.init` as a module's recorded API (api/<module>.txt) lists it.
        func initialiserLabels(in module: String) throws -> [[String]] {
            let record = try String(
                contentsOf: Snippets.repository.appendingPathComponent("api/\(module).txt"), encoding: .utf8)
            return record.split(separator: "\n").compactMap { line in
                guard let start = line.range(of: "RestingClient.init(")?.upperBound,
                    let end = line[start...].firstIndex(of: ")")
                else { return nil }
                return line[start..<end].split(separator: ":").map(String.init)
            }
        }
        let core = try initialiserLabels(in: "RestingCore").filter { $0.contains("httpClient") }
        let umbrella = try initialiserLabels(in: "RestingKit")
        #expect(core.count == 1 && umbrella.count == 1)
        #expect(umbrella.first == core.first?.filter { $0 != "httpClient" })
    }
}
