import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import Testing

// The README's streamed-response examples, verbatim between the markers, against image_server.

// snippet: stream-models
struct Update: Decodable, Sendable {
    let id: Int
    let text: String
}
// end snippet

@Suite("README examples: streamed responses")
struct ReadmeResponseStreamingExamples {
    let server: LocalServer
    let restingClient: RestingClient

    init() async throws {
        server = try await LocalServer.sharedImageServer.value
        restingClient = RestingClient(baseUrl: server.baseURL)
    }

    @Test("Server-Sent Events, reconnecting across a cut without losing or repeating an event")
    func serverSentEvents() async throws {
        let output = Collector<String>()
        try await ExampleOutput.$lines.withValue(output) {
            // snippet: stream-sse
            let updates = Endpoint<Nothing, ServerSentEvents>(.get, "/stream/sse?count=5&cut_after=2")
            let response = try await restingClient.perform(RestingRequest(endpoint: updates)).value
            for try await event in response.body.reconnecting(
                .init(maximumAttempts: 5, defaultDelay: .milliseconds(100)))
            {
                let update = try event.decode(Update.self)
                print("\(event.lastEventID): \(update.text)")
            }
            // end snippet
        }
        #expect(output.all == (1...5).map { "\($0): event \($0)" })
    }

    @Test("NDJSON as typed values, lines, and raw chunks")
    func ndjsonLinesAndBytes() async throws {
        let output = Collector<String>()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rk-readme-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let exportFile = folder.appendingPathComponent("export.bin")
        #expect(FileManager.default.createFile(atPath: exportFile.path, contents: nil))
        try await ExampleOutput.$lines.withValue(output) {
            // snippet: stream-ndjson
            let feed = Endpoint<Nothing, JSONLines<Update>>(.get, "/stream/ndjson?count=3")
            for try await update in try await restingClient.perform(RestingRequest(endpoint: feed)).value.body {
                print("item \(update.id)")
            }
            // end snippet

            // snippet: stream-bytes
            let export = Endpoint<Nothing, ResponseBodyStream>(.get, "/stream/bytes?size=10485760")
            let body = try await restingClient.perform(RestingRequest(endpoint: export)).value.body
            let file = try FileHandle(forWritingTo: exportFile)
            defer { try? file.close() }
            for try await chunk in body {
                try file.write(contentsOf: chunk)  // memory holds a chunk or two, never the whole body
            }

            let log = Endpoint<Nothing, ResponseLines>(.get, "/stream/ndjson?count=2")
            for try await line in try await restingClient.perform(RestingRequest(endpoint: log)).value.body {
                print(line)
            }
            // end snippet
        }
        #expect(
            output.all == [
                "item 1", "item 2", "item 3", #"{"id": 1, "text": "item 1"}"#, #"{"id": 2, "text": "item 2"}"#,
            ])
        #expect(FileManager.default.fileSize(exportFile) == 10_485_760)
    }

    @Test("streaming code tested against a stub that plays chunks out in time")
    func stubbedStream() async throws {
        // snippet: stream-stub
        let stub = StubHTTPClient()
        stub.register(
            .get, "/stream/sse",
            .stream(
                [
                    .text("id: 1\ndata: {\"id\":1,\"text\":\"hello\"}\n\n"),
                    .pause(.milliseconds(20)),
                    .text("id: 2\ndata: {\"id\":2,\"text\":\"world\"}\n\n"),
                ], headers: ["Content-Type": "text/event-stream"]))
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: stub)
        let events = Endpoint<Nothing, ServerSentEvents>(.get, "/stream/sse")
        var texts: [String] = []
        for try await event in try await client.perform(RestingRequest(endpoint: events)).value.body {
            texts.append(try event.decode(Update.self).text)
        }
        #expect(texts == ["hello", "world"])
        // end snippet
    }
}

extension FileManager {
    func fileSize(_ url: URL) -> Int? { (try? attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil }
}
