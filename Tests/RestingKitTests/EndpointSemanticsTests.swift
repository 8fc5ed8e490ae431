import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import Testing

/// What an endpoint says of itself — its headers and content type, the statuses it accepts besides the client's, the
/// envelope its value sits in — reaches the wire and comes back the same on both transports (image_server's `/echo`
/// answers with what it received).
@Suite("Endpoint modifiers on the wire")
struct EndpointSemanticsTests {
    struct Echo: Decodable, Sendable {
        let method: String
        let headers: [[String]]
        let body: String

        func header(_ name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }
    }

    func client(_ transport: EachTransport, providing headers: [String: String] = [:]) async throws -> RestingClient {
        let provider = RestingHeaderProvider(providers: headers.mapValues { value in { value } })
        return RestingClient(
            baseUrl: try await LocalServer.sharedImageServer.value.baseURL, httpClient: try transport.client,
            requestConverter: RestingRequestConverter(configuration: .init(headerProvider: provider)))
    }

    @Test(
        "an endpoint's headers replace the provider's; a request's replace the endpoint's",
        arguments: EachTransport.allCases)
    func headerPrecedence(transport: EachTransport) async throws {
        let client = try await client(transport, providing: ["X-Tier": "provider", "X-Region": "provider"])
        let echo = Endpoint<Nothing, Echo>(.get, "/echo", headers: ["X-Tier": "endpoint", "X-Only-Endpoint": "yes"])
            .header("X-Region", "endpoint")
        let answer = try await client.send(RestingRequest(endpoint: echo, headers: ["X-Region": "request"])).body
        #expect(answer.header("X-Tier") == ["endpoint"])
        #expect(answer.header("X-Region") == ["request"])
        #expect(answer.header("X-Only-Endpoint") == ["yes"])
    }

    @Test("an endpoint's content type replaces its encoding's", arguments: EachTransport.allCases)
    func contentType(transport: EachTransport) async throws {
        let client = try await client(transport)
        let patch = Endpoint<JSONValue, Echo>(.patch, "/echo", encoding: .json)
            .contentType("application/merge-patch+json")
        let answer = try await client.send(RestingRequest(endpoint: patch, body: ["title": nil, "done": true])).body
        #expect(answer.header("Content-Type") == ["application/merge-patch+json"])
        #expect(answer.body == #"{"done":true,"title":null}"#)
    }

    @Test("a status the endpoint accepts besides the client's is decoded", arguments: EachTransport.allCases)
    func acceptedStatus(transport: EachTransport) async throws {
        let client = try await client(transport)
        struct Refusal: Decodable, Sendable { let status: Int }
        let teapot = Endpoint<Nothing, Refusal>(.get, "/status/418").accepting(418)
        let response = try await client.send(RestingRequest(endpoint: teapot))
        #expect(response.status == 418)
        #expect(response.body.status == 418)
        // Only on that endpoint: the client still refuses it elsewhere.
        await #expect(throws: RestingError.self) {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Refusal>(.get, "/status/418")))
        }
    }
}
