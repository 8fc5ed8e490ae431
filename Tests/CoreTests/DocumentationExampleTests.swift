import Foundation
import RestingCore
import RestingTesting
import Testing

// The examples of the public doc comments, compiled and run.

/// `HTTPClient`'s example transport.
struct TeapotClient: HTTPClient {
    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        try Task.checkCancellation()
        let body = Data("I'm a teapot".utf8)
        progress(TransferProgress(bytesReceived: Int64(body.count), totalBytesToReceive: Int64(body.count)))
        return HTTPDataResponse(
            status: 418, headers: ["Content-Type": "text/plain"], body: ResponseBody(body),
            url: request.url)
    }
}

@Suite("Documentation examples")
struct DocumentationExampleTests {
    @Test("the HTTPClient example transport answers 418, which the client reports as an HTTP error")
    func teapotTransport() async throws {
        let client = RestingClient(baseUrl: "https://example.com", httpClient: TeapotClient())
        let endpoint = Endpoint<Nothing, Data>(.get, "/brew", encoding: .query)
        do {
            _ = try await client.perform(RestingRequest(endpoint: endpoint)).value
            Issue.record("418 is not a success")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 418 && String(decoding: error.body, as: UTF8.self) == "I'm a teapot")
        }
        let lenient = RestingClient(
            baseUrl: "https://example.com", httpClient: TeapotClient(), acceptedStatusCodes: 200..<500)
        #expect(try await lenient.perform(RestingRequest(endpoint: endpoint)).value.body.count == 12)
    }

    @Test("the StubHTTPClient example serves routes in sequence and records requests")
    func stubExample() async throws {
        struct Post: Codable, Sendable {
            let id: Int
            let title: String
        }
        let stub = StubHTTPClient()
        stub.register(.get, "/posts/1", try .json(Post(id: 1, title: "Hi")))
        stub.register(.post, "/posts", .status(503), try .json(Post(id: 2, title: "Created"), status: 201))
        let client = RestingClient(baseUrl: "https://example.com", httpClient: stub)
        let create = Endpoint<Post, Post>(.post, "/posts", encoding: .json)
        await #expect(throws: RestingError.self) {
            try await client.perform(RestingRequest(endpoint: create, body: Post(id: 0, title: "x"))).value
        }
        #expect(
            try await client.perform(RestingRequest(endpoint: create, body: Post(id: 0, title: "x"))).value.status
                == 201)
        #expect(
            try await client.perform(RestingRequest(endpoint: create, body: Post(id: 0, title: "x"))).value.status
                == 201, "the last response repeats")
        #expect(stub.received.count == 3)
    }

    @Test("the URLQueryEncoder example")
    func queryEncoderExample() throws {
        struct Search: Encodable {
            let term: String
            let tags: [String]
            let page: Page
        }
        struct Page: Encodable {
            let size: Int
            let after: String?
        }
        var encoder = URLQueryEncoder()
        encoder.arrayEncoding = .indexed
        let items = try encoder.encode(Search(term: "a b", tags: ["x", "y"], page: Page(size: 10, after: nil)))
        #expect(
            items.map { "\($0.name)=\($0.value ?? "")" } == ["term=a b", "tags[0]=x", "tags[1]=y", "page[size]=10"])
    }
}
