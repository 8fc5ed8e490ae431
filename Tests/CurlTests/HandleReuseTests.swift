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
        let headers: [[String]]

        /// The values the server received for `name`.
        func values(of name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }
    }

    @Test("a reused handle carries nothing over from the previous request: method, body or timeout")
    func nothingCarriesOver() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/echo"))
        let body = RequestBody.bytes(Data("payload".utf8))
        // One request at a time, so that every request reuses the previous one's handle.
        let sequence: [(RequestMethod, RequestBody, String, Int)] = [
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
            let echo = try JSONDecoder().decode(Echo.self, from: response.body.bytes)
            #expect(echo.method == expectedMethod && echo.bodyLength == expectedLength, "request \(index): \(method)")
        }
        // The 3 s timeout of request 1 must not linger: a slower request after it succeeds.
        let slow = try #require(URL(string: "http://127.0.0.1:\(server.port)/delay/3500"))
        #expect(try await transport.send(HTTPRequest(method: .get, url: slow)) { _ in }.status == 200)
    }

    @Test("a reused handle sends each request's own headers: the last list is kept only while they stay the same")
    func headersFollowEachRequest() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/echo"))
        let token: HTTPHeaderFields = ["X-Token": "one"]
        // (method, headers, what X-Token must read): one request at a time, so that each reuses the previous
        // one's handle and, where method and headers repeat, its header list.
        let sequence: [(RequestMethod, HTTPHeaderFields, [String])] = [
            (.get, token, ["one"]), (.get, token, ["one"]), (.get, ["X-Token": "two"], ["two"]), (.get, [:], []),
            (.post, [:], []), (.get, [:], []), (.post, token, ["one"]), (.get, token, ["one"]),
        ]
        for (index, (method, headers, expectedToken)) in sequence.enumerated() {
            let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers)) { _ in }
            let echo = try JSONDecoder().decode(Echo.self, from: response.body.bytes)
            #expect(echo.method == method.rawValue, "request \(index)")
            #expect(echo.values(of: "X-Token") == expectedToken, "request \(index)")
            #expect(echo.values(of: "Expect").isEmpty, "request \(index): no Expect: 100-continue")
            // libcurl invents a form Content-Type for a POST unless told not to; a GET must not inherit that.
            #expect(echo.values(of: "Content-Type").isEmpty, "request \(index)")
        }
    }
}
