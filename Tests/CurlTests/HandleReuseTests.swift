import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import Testing

@Suite("CurlClient handle reuse")
struct HandleReuseTests {
    private struct Echo: Decodable {
        let method: String
        let bodyLength: Int
    }

    @Test("a reused handle carries nothing over from the previous request: method, body or timeout")
    func nothingCarriesOver() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/echo"))
        let body = RequestBody.bytes(Data("payload".utf8))
        // One request at a time, so that every request reuses the previous one's handle.
        let sequence: [(HTTPMethod, RequestBody, String, Int)] = [
            (.head, .empty, "HEAD", -1), (.get, .empty, "GET", 0), (.put, body, "PUT", 7), (.get, .empty, "GET", 0),
            (.post, body, "POST", 7), ("PURGE", .empty, "PURGE", 0), (.get, .empty, "GET", 0),
            (.delete, body, "DELETE", 7),
            (.options, .empty, "OPTIONS", 0), (.post, .empty, "POST", 0), (.get, .empty, "GET", 0),
        ]
        for (index, (method, requestBody, expectedMethod, expectedLength)) in sequence.enumerated() {
            let timeout: Duration? = index == 1 ? .seconds(3) : nil
            let response = try await transport.send(
                HTTPRequest(method: method, url: url, body: requestBody, timeout: timeout)
            ) { _ in }
            #expect(response.status == 200, "\(method)")
            guard expectedLength >= 0 else {
                #expect(response.body.isEmpty, "HEAD has no body")
                continue
            }
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.method == expectedMethod && echo.bodyLength == expectedLength, "request \(index): \(method)")
        }
        // The 3 s timeout of request 1 must not linger: a slower request after it succeeds.
        let slow = try #require(URL(string: "http://127.0.0.1:\(server.port)/delay/3500"))
        #expect(try await transport.send(HTTPRequest(method: .get, url: slow)) { _ in }.status == 200)
    }
}
