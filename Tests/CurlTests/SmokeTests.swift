import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import Testing

@Suite("CurlClient smoke")
struct CurlSmokeTests {
    @Test("GET and POST against image_server")
    func getAndPost() async throws {
        let server = try ImageServer.shared.get()
        let transport = try CurlClient()
        let response = try await transport.send(HTTPRequest(method: .get, url: URL(string: server.baseURL + "/posts/1")!)) { _ in }
        #expect(response.status == 200)
        print(String(decoding: response.body, as: UTF8.self), response.headers, response.metrics as Any)
        let post = try await transport.send(HTTPRequest(method: .post, url: URL(string: server.baseURL + "/echo")!, headers: ["X-A": "1"], body: .bytes(Data("hello".utf8)))) { _ in }
        print(String(decoding: post.body, as: UTF8.self))
    }
}
