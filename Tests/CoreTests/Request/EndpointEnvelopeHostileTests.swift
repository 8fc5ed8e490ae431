import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// `wrapping(_:)`, `unwrapping(_:)` and `call` against odd key paths, encoders and answers.
@Suite("Endpoint envelopes and calls, hostile")
struct EndpointEnvelopeHostileTests {
    struct Draft: Codable, Sendable { let itemTitle: String }
    struct Item: Codable, Sendable, Equatable { let n: Int }
    struct Measure: Codable, Sendable { let value: Double }

    private func snakeCaseClient(_ stub: StubHTTPClient) -> RestingClient {
        let configuration = RestingRequestConverter.Configuration()
        configuration.jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
        return RestingClient(
            baseUrl: baseURL, httpClient: stub, requestConverter: RestingRequestConverter(configuration: configuration))
    }

    /// An envelope's names are the API's, written as given: the encoder's key strategy renames the value's own keys
    /// only.
    @Test("an envelope's camel-case names are sent as written, whatever the encoder's key strategy")
    func envelopeNamesAsWritten() async throws {
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let create = Endpoint<Draft, Nothing>(.post, "/items", encoding: .json).wrapping("newRecord.recordData")
        try await snakeCaseClient(stub).call(create, body: Draft(itemTitle: "milk"))
        let sent = String(decoding: try #require(stub.received.first?.body), as: UTF8.self)
        #expect(sent == #"{"newRecord":{"recordData":{"item_title":"milk"}}}"#)
    }

    /// A key path with an empty member is refused on the way out as on the way in: nothing sent, rather than the bare
    /// value or another envelope.
    @Test(
        "an envelope key path with an empty member fails the call typed, as unwrapping does, nothing sent",
        arguments: ["", ".", "data.", ".data", "a..b"])
    func emptyEnvelopeMember(_ keyPath: String) async throws {
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let create = Endpoint<Item, Nothing>(.post, "/items", encoding: .json).wrapping(keyPath)
        let error = await restingError {
            try await RestingClient(baseUrl: baseURL, httpClient: stub).call(create, body: Item(n: 1))
        }
        guard case .encodingFailed = error else {
            Issue.record(
                "wrapping(\"\(keyPath)\") sent \(stub.received.map { String(decoding: $0.body, as: UTF8.self) })")
            return
        }
        #expect(stub.received.isEmpty)
    }

    /// ``Nothing`` reads no body, whatever envelope the endpoint (or the API's convention) names.
    @Test(
        "an endpoint answering Nothing ignores the body even with an envelope set",
        arguments: ["OK", "{}", "[]", #"{"data": null}"#])
    func nothingIgnoresTheBodyInAnEnvelope(_ body: String) async throws {
        let stub = StubHTTPClient(fallback: { _ in .text(body, contentType: "application/json") })
        let delete = Endpoint<Nothing, Nothing>(.delete, "/items/1").unwrapping("data")
        try await RestingClient(baseUrl: baseURL, httpClient: stub).call(delete)
    }

    @Test("a value that cannot be encoded inside an envelope fails the call typed, nothing sent")
    func unencodableBodyInEnvelope() async throws {
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let create = Endpoint<Measure, Nothing>(.post, "/measures", encoding: .json).wrapping("data.measure")
        for value in [Double.nan, .infinity, -.infinity] {
            let error = await restingError {
                try await RestingClient(baseUrl: baseURL, httpClient: stub).call(create, body: Measure(value: value))
            }
            guard case .encodingFailed = error else {
                Issue.record("got \(String(describing: error))")
                continue
            }
        }
        #expect(stub.received.isEmpty)
    }

    @Test("an empty or malformed answer to a call for a value is a typed decoding failure; an optional reads nil")
    func malformedAnswers() async throws {
        for body in ["", "null", "{", "[1]", "\u{0}", String(repeating: "[", count: 100_000)] {
            let stub = StubHTTPClient(fallback: { _ in .text(body, contentType: "application/json") })
            let client = RestingClient(baseUrl: baseURL, httpClient: stub)
            let error = await restingError { try await client.call(Endpoint<Nothing, Item>(.get, "/item")) }
            guard case .decodingFailed = error else {
                Issue.record("body \(body.prefix(10)): got \(String(describing: error))")
                continue
            }
        }
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let none = try await RestingClient(baseUrl: baseURL, httpClient: stub).call(
            Endpoint<Nothing, Item?>(.get, "/item"))
        #expect(none == nil)
    }

    /// A request's preconditions are its own: `nil` removes the one it had, and one that the endpoint or a header
    /// provider adds is sent as they say.
    @Test("ifMatch(nil) and ifNoneMatch(nil) remove the request's own preconditions, and only those")
    func nilPreconditionRemovesTheRequestsOwn() async throws {
        let stub = StubHTTPClient(fallback: { _ in .status(204) })
        let provider = RestingHeaderProvider(providers: ["If-None-Match": { "*" }])
        let converter = RestingRequestConverter(configuration: .init(headerProvider: provider))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub, requestConverter: converter)
        let save = Endpoint<Item, Nothing>(.put, "/items/1", encoding: .json)
        let request = RestingRequest(endpoint: save, body: Item(n: 2)).ifMatch("\"1\"").ifNoneMatch("\"2\"")
        try await client.send(request.ifMatch(nil).ifNoneMatch(nil))
        try await client.send(RestingRequest(endpoint: save.header("If-Match", "\"3\""), body: Item(n: 2)).ifMatch(nil))
        let sent = stub.received.map(\.request.headers)
        #expect(sent.map { $0["If-Match"] } == [nil, "\"3\""])
        #expect(sent.map { $0["If-None-Match"] } == ["*", "*"])
    }
}
