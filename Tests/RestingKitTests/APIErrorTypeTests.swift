import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingOffline
@testable import RestingPagination
@testable import RestingStreaming

/// The app's error type, named once on the client or an endpoint, is what every call path throws for a status it does
/// not accept — with the response underneath — and a body that is not one stays a `RestingError.httpError`.
@Suite("The app's error type on every call path")
struct APIErrorTypeTests {
    let missing = ["bucket": "errors", "collection": "c", "id": "missing"] as [String: any PathVariableValue]
    static let recordPath = "/v1/buckets/{{bucket}}/collections/{{collection}}/records/{{id}}"

    func client(_ transport: EachTransport, authenticated: Bool = true) async throws -> RestingClient {
        RestingClient(
            baseUrl: try await StorageServers.first.value.baseURL, httpClient: try transport.client,
            interceptors: authenticated ? [AuthInterceptor.basic(username: "alice", password: "wonderland")] : [],
            errorBody: KintoError.self)
    }

    func expectNotFound(_ error: KintoError?) {
        #expect(error?.errno == 110)
        #expect(error?.response?.status == 404)
        #expect(error?.response.map { String(decoding: $0.body, as: UTF8.self) }?.contains("\"errno\"") == true)
    }

    @Test(
        "an error type needs no CodingKeys for its response, which is the real one even when the body has a 'response'")
    func errorBodyWithoutCodingKeys() async throws {
        struct QuotaError: HTTPErrorBody {
            let reason: String
            var response: HTTPError?
        }
        let body = #"{"reason": "quota", "response": {"status": 200}}"#
        let stub = StubHTTPClient(fallback: { _ in .text(body, status: 429, contentType: "application/json") })
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: stub, errorBody: QuotaError.self)
        let error = await #expect(throws: QuotaError.self) {
            try await client.call(Endpoint<Nothing, Nothing>(.get, "/quota"))
        }
        #expect(error?.reason == "quota")
        #expect(error?.response?.status == 429)
        #expect(error?.response?.body == Data(body.utf8))
    }

    @Test("perform and send", arguments: EachTransport.allCases)
    func performAndSend(transport: EachTransport) async throws {
        let client = try await client(transport)
        let read = RestingRequest(endpoint: Endpoint<Nothing, Order>(.get, Self.recordPath), pathVariables: missing)
        expectNotFound(await #expect(throws: KintoError.self) { try await client.perform(read).value })
        expectNotFound(await #expect(throws: KintoError.self) { try await client.send(read) })
    }

    @Test("a streamed response", arguments: EachTransport.allCases)
    func streamed(transport: EachTransport) async throws {
        let client = try await client(transport)
        let lines = Endpoint<Nothing, ResponseLines>(.get, Self.recordPath)
        expectNotFound(
            await #expect(throws: KintoError.self) {
                try await client.perform(RestingRequest(endpoint: lines, pathVariables: missing)).value
            })
    }

    @Test("a download", arguments: EachTransport.allCases)
    func download(transport: EachTransport) async throws {
        let client = try await client(transport)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("rk-\(UUID().uuidString)")
        let file = Endpoint<Nothing, Data>(.get, Self.recordPath)
        expectNotFound(
            await #expect(throws: KintoError.self) {
                try await client.download(RestingRequest(endpoint: file, pathVariables: missing), to: destination).value
            })
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("pages", arguments: EachTransport.allCases)
    func pages(transport: EachTransport) async throws {
        let client = try await client(transport, authenticated: false)
        let list = Endpoint<Nothing, [Order]>(.get, "/v1/buckets/b/collections/c/records").unwrapping("data")
        let refused = await #expect(throws: KintoError.self) {
            for try await _ in client.pages(of: list, pagination: .nextPageHeader("Next-Page")) {}
        }
        #expect(refused?.errno == 104)
    }

    @Test("a replay from the offline queue", arguments: EachTransport.allCases)
    func replay(transport: EachTransport) async throws {
        let client = try await client(transport)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rk-queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let delete = Endpoint<Nothing, Nothing>(.delete, Self.recordPath)
        try queue.enqueue(RestingRequest(endpoint: delete, pathVariables: missing))
        let report = try await queue.replay(with: client)
        expectNotFound(report.stoppedBy as? KintoError)
        #expect(report.remaining == 1)
    }

    @Test("an endpoint's error type wins over the client's; a body that is not one stays an HTTPError")
    func endpointOverridesClient() async throws {
        struct TeapotError: Error, Decodable, Equatable { let teapot: String }
        let stub = StubHTTPClient()
        stub.register(.get, "/teapot", try .json(["teapot": "short and stout"], status: 418))
        stub.register(.get, "/proxy", .text("<html>Bad gateway</html>", status: 502, contentType: "text/html"))
        let client = RestingClient(baseUrl: "https://api.example", httpClient: stub, errorBody: KintoError.self)

        let teapot = Endpoint<Nothing, Data>(.get, "/teapot").decodingErrors(as: TeapotError.self)
        await #expect(throws: TeapotError(teapot: "short and stout")) {
            try await client.send(RestingRequest(endpoint: teapot))
        }
        let failure = await #expect(throws: RestingError.self) {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/proxy")))
        }
        guard case .httpError(let error) = failure else {
            Issue.record("expected an HTTPError, got \(String(describing: failure))")
            return
        }
        #expect(error.status == 502)
    }
}
