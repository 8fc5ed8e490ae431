import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// An API's endpoints written as functions whose parameters are the path's: what a call site reads like, and what
/// each value becomes on the wire.
@Suite("The endpoint as a function")
struct EndpointAsFunctionTests {
    struct Collection: Codable, Sendable, Equatable { let id: String }

    enum Kinto {
        static func collection(bucket: String, id: String) -> Endpoint<Nothing, Collection> {
            Endpoint(.get, "/buckets/\(bucket)/collections/\(id)")
        }
        static func createCollection(bucket: String) -> Endpoint<Collection, Collection> {
            Endpoint(.post, "/buckets/\(bucket)/collections", encoding: .json)
        }
        static func deleteCollection(bucket: String, id: String) -> Endpoint<Nothing, Nothing> {
            Endpoint(.delete, "/buckets/\(bucket)/collections/\(id)")
        }
        static func renameCollection(bucket: String, id: String) -> Endpoint<Collection, Nothing> {
            Endpoint(.put, "/buckets/\(bucket)/collections/\(id)/name", encoding: .json)
        }
        static func file(version: Int, _ path: String) -> Endpoint<Nothing, Data> {
            Endpoint(.get, "/v\(version)/files/\(segments: path)/{{format}}")
        }
    }

    /// A stub answering every call with `answer`, and the client over it.
    private func client(answering answer: StubResponse = .status(204)) -> (RestingClient, StubHTTPClient) {
        let stub = StubHTTPClient(fallback: { _ in answer })
        return (RestingClient(baseUrl: "https://api.example.com", httpClient: stub), stub)
    }

    @Test("a call passes the path's values as a function's arguments and returns the decoded body")
    func callReturnsTheBody() async throws {
        let (client, stub) = client(answering: try .json(Collection(id: "articles")))
        let collection = try await client.call(Kinto.collection(bucket: "blog", id: "articles"))
        #expect(collection == Collection(id: "articles"))
        #expect(
            stub.received.map(\.request.url.absoluteString) == [
                "https://api.example.com/buckets/blog/collections/articles"
            ])
    }

    @Test("each interpolated value is one percent-encoded segment: it cannot add a segment, a query or a variable")
    func valuesAreEncoded() async throws {
        let (client, stub) = client(answering: try .json(Collection(id: "x")))
        _ = try await client.call(Kinto.collection(bucket: "a b", id: "../admin?x=1#{{id}}"))
        #expect(
            stub.received.map(\.request.url.absoluteString) == [
                "https://api.example.com/buckets/a%20b/collections/..%2Fadmin%3Fx%3D1%23%7B%7Bid%7D%7D"
            ])
    }

    @Test(
        "a value that would change the URL's shape fails the call typed, and nothing is sent",
        arguments: ["", ".", ".."])
    func shapeChangingValuesAreRefused(_ id: String) async throws {
        let (client, stub) = client()
        await #expect {
            _ = try await client.call(Kinto.collection(bucket: "blog", id: id))
        } throws: { error in
            guard case RestingError.invalidPathVariable(let name, let template, _) = error else { return false }
            return name == "interpolation 2" && template == #"/buckets/\(…)/collections/\(…)"#
        }
        #expect(stub.received.isEmpty)
    }

    @Test("segments: spans a value over segments, each checked; literal text stays a template with its variables")
    func segmentsAndTemplateVariables() async throws {
        let (client, stub) = client(answering: .status(200, body: Data("x".utf8)))
        let file = RestingRequest(endpoint: Kinto.file(version: 2, "docs/a b.txt"), pathVariables: ["format": "raw"])
        _ = try await client.send(file)
        #expect(stub.received.map(\.request.url.path) == ["/v2/files/docs/a b.txt/raw"])
        #expect(
            stub.received.map(\.request.url.absoluteString).first?.hasSuffix("/v2/files/docs/a%20b.txt/raw") == true)
        await #expect(throws: RestingError.self) { _ = try await client.call(Kinto.file(version: 2, "docs/../etc")) }
    }

    @Test("a body goes with the call; an endpoint answering Nothing returns nothing to discard")
    func bodiesAndNothing() async throws {
        let (client, stub) = client(answering: try .json(Collection(id: "drafts")))
        let created = try await client.call(Kinto.createCollection(bucket: "blog"), body: Collection(id: "drafts"))
        #expect(created == Collection(id: "drafts"))
        try await client.call(Kinto.deleteCollection(bucket: "blog", id: "drafts"))
        try await client.call(Kinto.renameCollection(bucket: "blog", id: "drafts"), body: Collection(id: "notes"))
        #expect(stub.received.map(\.request.method) == [.post, .delete, .put])
        #expect(stub.received.map(\.body) == [Data(#"{"id":"drafts"}"#.utf8), Data(), Data(#"{"id":"notes"}"#.utf8)])
    }

    @Test("query items and headers go with a call that has no RestingRequest")
    func queryAndHeaders() async throws {
        let (client, stub) = client(answering: try .json(Collection(id: "x")))
        _ = try await client.call(
            Kinto.collection(bucket: "blog", id: "x"), query: [URLQueryItem(name: "_fields", value: "id,title")],
            headers: ["X-Trace": "1"])
        #expect(stub.received.first?.request.url.query == "_fields=id%2Ctitle")
        #expect(stub.received.first?.request.headers["X-Trace"] == "1")
    }

    @Test("a path made at run time is still a template: a String is never read as interpolation")
    func runTimePaths() async throws {
        let (client, stub) = client(answering: try .json(Collection(id: "x")))
        let records = "/buckets/{{bucket}}/collections"
        let endpoint = Endpoint<Nothing, Collection>(.get, records + "/{{id}}")
        _ = try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["bucket": "b", "id": "c"]))
        #expect(stub.received.map(\.request.url.path) == ["/buckets/b/collections/c"])
    }

    @Test("a request answering Nothing may be sent without using its result; a precondition may be nil")
    func discardableSendAndOptionalPreconditions() async throws {
        let (client, stub) = client()
        let etag: String? = nil
        // Compiled with warnings as errors: an unused result of `send` here would fail the build.
        try await client.send(RestingRequest(endpoint: Kinto.deleteCollection(bucket: "blog", id: "a")).ifMatch(etag))
        try await client.send(
            RestingRequest(endpoint: Kinto.deleteCollection(bucket: "blog", id: "b")).ifMatch("\"7\""))
        let unconditional = RestingRequest(endpoint: Kinto.deleteCollection(bucket: "blog", id: "c"))
            .ifMatch("\"7\"").ifNoneMatch("*").ifMatch(nil).ifNoneMatch(nil)
        try await client.send(unconditional)
        #expect(stub.received.map { $0.request.headers["If-Match"] } == [nil, "\"7\"", nil])
        #expect(stub.received.map { $0.request.headers["If-None-Match"] } == [nil, nil, nil])
    }
}
