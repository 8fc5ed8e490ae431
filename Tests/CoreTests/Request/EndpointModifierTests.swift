import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// An endpoint says what it means once: a default encoding when it sends nothing, its own attributes, headers and
/// content type, the statuses it accepts, and where its value sits in the body.
@Suite("Endpoint modifiers")
struct EndpointModifierTests {
    enum TenantKey: RequestAttributeKey { static let defaultValue: String? = nil }
    struct Item: Codable, Sendable, Equatable { let n: Int }
    struct Envelope<Value: Decodable & Sendable>: Decodable, Sendable { let data: Value }

    func client(_ stub: StubHTTPClient) -> RestingClient { RestingClient(baseUrl: baseURL, httpClient: stub) }

    @Test("an endpoint that sends nothing needs no encoding, and sends its query items as they are")
    func defaultEncoding() throws {
        let endpoint = Endpoint<Nothing, Post>(.get, "/posts")
        #expect(endpoint.encoding == .query)
        let converted = try convert(
            RestingRequest(endpoint: endpoint, queryItems: [URLQueryItem(name: "q", value: "a b")]))
        #expect(converted.url.absoluteString == baseURL + "/posts?q=a%20b")
    }

    @Test("a body is sent inside the envelope the endpoint names, its names as written, and the answer read out of one")
    func requestEnvelope() async throws {
        struct Draft: Codable, Sendable { let itemTitle: String }
        let stub = StubHTTPClient(fallback: { _ in .text(#"{"data": {"n": 7}}"#, contentType: "application/json") })
        let create = Endpoint<Draft, Item>(.post, "/items", encoding: .json).wrapping("payload.data_v2").unwrapping(
            "data")
        let configuration = RestingRequestConverter.Configuration()
        configuration.jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, requestConverter: RestingRequestConverter(configuration: configuration))
        #expect(try await client.call(create, body: Draft(itemTitle: "milk")) == Item(n: 7))
        #expect(stub.received.map(\.body) == [Data(#"{"payload":{"data_v2":{"item_title":"milk"}}}"#.utf8)])
        #expect(stub.received.first?.request.headers["Content-Type"] == "application/json")
    }

    @Test("only a JSON body can be wrapped: another encoding fails the call typed, nothing sent")
    func envelopeNeedsJSON() async throws {
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let form = Endpoint<Item, Nothing>(.post, "/items", encoding: .formURLEncoded).wrapping("data")
        await #expect {
            try await client(stub).call(form, body: Item(n: 1))
        } throws: { error in
            guard case RestingError.encodingFailed(let reason) = error else { return false }
            return reason.hasPrefix("only a JSON body can be sent inside an envelope")
        }
        #expect(stub.received.isEmpty)
    }

    @Test("the app's own attribute key is set on an endpoint with its type")
    func customAttribute() throws {
        let endpoint = Endpoint<Nothing, Post>(.get, "/posts").setting(TenantKey.self, "acme")
        #expect(try convert(RestingRequest(endpoint: endpoint)).attributes[TenantKey.self] == "acme")
    }

    @Test("an endpoint's sensitive header stays sensitive, and a multipart body's type is never replaced")
    func headerMarksAndMultipart() throws {
        var headers = HTTPHeaderFields()
        headers.add(name: "X-Api-Key", value: "k", sensitive: true)
        let keyed = Endpoint<Nothing, Post>(.get, "/posts", headers: headers)
        #expect(
            try convert(RestingRequest(endpoint: keyed)).headers.first { $0.name == "X-Api-Key" }?.isSensitive == true)

        struct Form: Encodable, Sendable { let name: String }
        let upload = Endpoint<Form, Post>(.post, "/forms", encoding: .multipartFormData).contentType("text/plain")
        let converted = try convert(RestingRequest(endpoint: upload, body: Form(name: "x")))
        #expect(converted.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test("a value inside an envelope, at a key, a dotted key path or through a typed envelope")
    func envelopes() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/one", try .json(["data": ["n": 1]]))
        stub.register(.get, "/deep", try .json(["result": ["items": [["n": 1], ["n": 2]]]]))
        let client = client(stub)
        #expect(
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Item>(.get, "/one").unwrapping("data")))
                .body == Item(n: 1))
        let deep = Endpoint<Nothing, [Item]>(.get, "/deep").unwrapping("result.items")
        #expect(try await client.send(RestingRequest(endpoint: deep)).body == [Item(n: 1), Item(n: 2)])
        let typed = Endpoint<Nothing, Item>(.get, "/one").unwrapping(Envelope<Item>.self, \.data)
        #expect(try await client.send(RestingRequest(endpoint: typed)).body == Item(n: 1))
    }

    @Test("a missing member or an empty key path is a decoding failure; an empty body is still an optional's nil")
    func envelopeFailures() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/one", try .json(["data": ["n": 1]]))
        stub.register(.get, "/empty", .status(200))
        let client = client(stub)
        for keyPath in ["items", "data..n", ""] {
            let failure = await #expect(throws: RestingError.self) {
                try await client.send(
                    RestingRequest(endpoint: Endpoint<Nothing, Item>(.get, "/one").unwrapping(keyPath)))
            }
            guard case .decodingFailed(let type, _, _) = failure else {
                Issue.record("\(keyPath): expected decodingFailed, got \(String(describing: failure))")
                continue
            }
            #expect(type == "Item")
        }
        let optional = Endpoint<Nothing, Item?>(.get, "/empty").unwrapping("data")
        #expect(try await client.send(RestingRequest(endpoint: optional)).body == nil)
    }

    @Test("conditional requests carry the validators of the response they follow")
    func conditionalHeaders() throws {
        let previous = RestingResponse(
            status: 200, headers: ["ETag": "\"v1\"", "Last-Modified": "Wed, 21 Oct 2026 07:28:00 GMT"], body: Nothing())
        let read = RestingRequest(endpoint: Endpoint<Nothing, Post?>(.get, "/posts/1")).ifChanged(since: previous)
        #expect(read.headers["If-None-Match"] == "\"v1\"")
        #expect(read.headers["If-Modified-Since"] == "Wed, 21 Oct 2026 07:28:00 GMT")
        let write = RestingRequest(endpoint: Endpoint<Post, Post>(.put, "/posts/1", encoding: .json), body: post)
            .ifMatch("\"v1\"")
        #expect(try convert(write).headers["If-Match"] == "\"v1\"")
        let create = RestingRequest(endpoint: Endpoint<Post, Post>(.put, "/posts/1", encoding: .json), body: post)
            .ifNoneMatch("*")
        #expect(try convert(create).headers["If-None-Match"] == "*")
    }

    let post = Post(id: 1, userId: 1, title: "t", body: "b")
}
