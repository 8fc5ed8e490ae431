import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingOffline

/// An endpoint function's path in the offline queue: a refused value is refused there too, never kept as the path
/// without it; a kept value stays the call's and is not cached by the replaying client.
@Suite("Endpoint path, hostile values, offline")
struct EndpointPathOfflineHostileTests {
    enum Kinto {
        static func deleteRecord(collection: String, id: String) -> Endpoint<Nothing, Nothing> {
            Endpoint(.delete, "/collections/\(collection)/records/\(id)")
        }
        static func readToken(_ token: String) -> Endpoint<Nothing, Nothing> {
            Endpoint(.put, "/sessions/\(token)")
        }
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("outbox-hostile-\(UUID().uuidString)")
    }

    /// A refused value (`""`, `.`, `..`) fails the enqueue as it fails a direct call: kept, the path without it would
    /// send the replay to its parent (`DELETE /collections/c/records/`).
    @Test(
        "a refused interpolated value cannot be kept offline and later replayed against the parent path",
        arguments: ["", ".", ".."])
    func refusedValueIsNotKept(_ id: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let request = RestingRequest(endpoint: Kinto.deleteRecord(collection: "tasks", id: id))

        let direct = StubHTTPClient(fallback: { _ in .status(204) })
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: direct)
        await #expect(throws: RestingError.self) { try await client.send(request) }
        #expect(direct.received.isEmpty, "a direct call is refused, nothing sent")

        var kept = true
        do {
            try queue.enqueue(request, baseUrl: "https://api.example.com")
        } catch {
            kept = false
            if case .invalidPathVariable = error {} else { Issue.record("refused with \(error)") }
        }
        let received = Collector<String>()
        let up = ClosureHTTPClient { request in
            received.append("\(request.method) \(request.url.path)")
            return HTTPDataResponse(status: 204)
        }
        _ = try await queue.replay(with: RestingClient(baseUrl: "https://api.example.com", httpClient: up))
        #expect(!kept, "enqueue accepted an endpoint every call of which is refused")
        #expect(received.all.isEmpty, "replayed: \(received.all)")
    }

    /// A path with interpolated values is one call's, replayed or not: the replaying client keeps no URL of it.
    @Test("a replayed endpoint function's values are not kept in the replaying client's URL cache")
    func replayedValuesAreNotCached() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let token = "tok_9f8e7d6c5b4a"
        try queue.enqueue(RestingRequest(endpoint: Kinto.readToken(token)), baseUrl: "https://api.example.com")

        let up = ClosureHTTPClient { _ in HTTPDataResponse(status: 204) }
        let converter = RestingRequestConverter()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: up, requestConverter: converter)
        let report = try await queue.replay(with: client)
        #expect(report.sent == 1)
        #expect(converter.literalURLs.count == 0, "the token's URL is cached after the replay")
    }
}
