import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import RestingTesting
import Testing

@testable import RestingCore

/// The transports the newcomer API's tests run on.
enum EachTransport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl, urlSession

    var testDescription: String { rawValue }

    private static let curlClient = Result { try CurlClient() }
    private static let urlSessionClient = URLSessionClient()

    var client: any HTTPClient {
        get throws {
            switch self {
            case .curl: try Self.curlClient.get()
            case .urlSession: Self.urlSessionClient
            }
        }
    }
}

/// Storage servers shared by the tests of this process: two, so that a next page can be on another origin.
enum StorageServers {
    static let first = Task { try await LocalServer.start(script: LocalServer.storageServerScript) }
    static let second = Task { try await LocalServer.start(script: LocalServer.storageServerScript) }

    /// Sets one of the first server's switches (`backoff`, `unavailable`) for `collection`.
    static func control(_ name: String, _ value: Int, of collection: String) async throws {
        let client = RestingClient(baseUrl: try await first.value.baseURL, httpClient: try EachTransport.curl.client)
        let control = Endpoint<String, Data>(
            .put, "/__control__/{{collection}}/{{name}}", encoding: .raw(contentType: "text/plain"))
        _ = try await client.send(
            RestingRequest(
                endpoint: control, body: "\(value)", pathVariables: ["collection": collection, "name": name]))
    }
}

@Suite("The worked example: a storage API's client on both transports")
struct StorageClientTests {
    func notes(_ transport: EachTransport, collection: String = UUID().uuidString) async throws -> NotesClient {
        NotesClient(
            baseUrl: try await StorageServers.first.value.baseURL, transport: try transport.client, bucket: "guide",
            collection: collection)
    }

    @Test("creates, reads, patches with If-Match and deletes a note", arguments: EachTransport.allCases)
    func lifecycle(transport: EachTransport) async throws {
        let notes = try await notes(transport)
        let created = try await notes.add(Note(title: "Buy milk"))
        #expect(created.status == 201)
        let id = try #require(created.body.id)
        let etag = try #require(created.etag)

        let patched = try await notes.update(
            id, ["done": true, "title": "Buy oat milk", "tags": ["home"]], ifMatch: etag)
        #expect(patched.body.done)
        #expect(patched.body.title == "Buy oat milk")

        // The first ETag is stale now: the API's own error, with the response underneath.
        let conflict = await #expect(throws: StorageError.self) {
            try await notes.update(id, ["done": false], ifMatch: etag)
        }
        #expect(conflict?.errno == 114)
        #expect(conflict?.response?.status == 412)
        #expect(conflict?.response?.headers["Content-Type"] == "application/json")

        try await notes.delete(id)
        let gone = await #expect(throws: StorageError.self) { try await notes.read(id) }
        #expect(gone?.errno == 110)
    }

    @Test("a read conditional on the last answer is nil when nothing changed (304)", arguments: EachTransport.allCases)
    func notModified(transport: EachTransport) async throws {
        let notes = try await notes(transport)
        let id = try #require(try await notes.add(Note(title: "Unchanging")).body.id)
        let first = try await notes.read(id)
        #expect(first.body?.title == "Unchanging")
        let again = try await notes.read(id, ifChangedSince: first)
        #expect(again.status == 304)
        #expect(again.body == nil)
    }

    @Test("every note arrives through the pages the Next-Page header announces", arguments: EachTransport.allCases)
    func pagesByHeader(transport: EachTransport) async throws {
        let notes = try await notes(transport)
        for n in 1...5 { _ = try await notes.add(Note(title: "Note \(n)")) }
        var titles: [String] = []
        for try await note in notes.all(pageSize: 2) { titles.append(note.title) }
        #expect(titles == (1...5).map { "Note \($0)" })
    }

    @Test(
        "a batch creates and deletes in one request, each operation with its status", arguments: EachTransport.allCases)
    func batch(transport: EachTransport) async throws {
        let notes = try await notes(transport)
        let id = try #require(try await notes.add(Note(title: "Old")).body.id)
        let statuses = try await notes.batch(adding: [Note(title: "A"), Note(title: "B")], deleting: [id, "missing"])
        #expect(statuses == [201, 201, 200, 404])
    }

    @Test(
        "polling yields each change, waiting as long as Backoff and Retry-After ask", arguments: EachTransport.allCases)
    func polling(transport: EachTransport) async throws {
        let notes = try await notes(transport)
        _ = try await notes.add(Note(title: "First"))
        let clock = VirtualClock()
        var changes = notes.changes(every: .milliseconds(100), clock: clock).makeAsyncIterator()

        try await StorageServers.control("backoff", 60, of: notes.name)
        #expect(try await changes.next()?.map(\.title) == ["First"])
        try await StorageServers.control("backoff", 0, of: notes.name)
        try await StorageServers.control("unavailable", 1, of: notes.name)
        _ = try await notes.add(Note(title: "Second"))
        // Only what changed since the last answer (`_since`), once: after the 60 s the first answer asked for, and
        // the second the 503 between asked for.
        #expect(try await changes.next()?.map(\.title) == ["Second"])
        #expect(clock.sleeps == [.seconds(60), .seconds(1)])
    }

    @Test("an answer without credentials is the API's 401 error, which Basic auth does not retry")
    func unauthorized() async throws {
        let client = RestingClient(
            baseUrl: try await StorageServers.first.value.baseURL, httpClient: try EachTransport.curl.client,
            errorBody: StorageError.self)
        let failure = await #expect(throws: StorageError.self) {
            try await client.send(
                RestingRequest(endpoint: StorageAPI.list, pathVariables: ["bucket": "b", "collection": "c"]))
        }
        #expect(failure?.errno == 104)
        #expect(failure?.response?.headers["WWW-Authenticate"] == "Basic realm=\"storage\"")
    }

    @Test("the guide states the example's lines of code and the Retrofit client's, both counted by one script")
    func guideLineCount() async throws {
        /// `scripts/count_lines.py`'s count: lines neither blank nor comments.
        func count(_ file: String, _ arguments: String...) async throws -> Int {
            let path = Snippets.repository.appendingPathComponent(file).path
            let script = Snippets.repository.appendingPathComponent("scripts/count_lines.py").path
            let (status, output) = try await ChildProcess.run("/usr/bin/env", ["python3", script, path] + arguments)
            #expect(status == 0)
            return try #require(
                Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let example = try await count("Tests/RestingKitTests/StorageClient.swift", "--snippet", "storage-client")
        let shown = try await count("Documentation/RestingCore.docc/WholeAPIClient.md", "--fence", "storage-client")
        let retrofit = try await count(
            "Documentation/RestingCore.docc/WholeAPIClient.md", "--fence", "storage-client-retrofit")
        #expect(shown == example, "the guide shows the code the tests run")
        let guide = try String(
            contentsOf: Snippets.repository.appendingPathComponent("Documentation/RestingCore.docc/WholeAPIClient.md"),
            encoding: .utf8)
        #expect(guide.contains("is **\(example) lines** of code"), "the guide must say the example is \(example) lines")
        #expect(guide.contains("is\n**\(retrofit) lines** by the same rule"), "and the Retrofit client \(retrofit)")
        let readme = try String(contentsOf: Snippets.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("in \(example) lines of code"), "the README must say the example is \(example) lines")
        #expect(readme.contains("counted alike, in \(retrofit))"), "and the Retrofit client \(retrofit)")
    }
}
