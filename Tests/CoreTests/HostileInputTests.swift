import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// Smaller ways a server or a careless caller could bend a request or a file out of shape.
@Suite("Hostile input")
struct HostileInputTests {
    @Test("default query parameters go before a fragment, not after it where they would never be sent")
    func defaultQueryBeforeFragment() async throws {
        let seen = Collector<String>()
        let client = RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { request in
                seen.append(request.url.absoluteString)
                return HTTPDataResponse(status: 200)
            }, interceptors: [DefaultsInterceptor(queryItems: [URLQueryItem(name: "locale", value: "fr")])])
        let endpoint = Endpoint<Nothing, Nothing>(.get, "https://api.example.com/p?a=1#section", encoding: .query)
        _ = try await client.perform(RestingRequest(endpoint: endpoint)).value
        #expect(seen.all == ["https://api.example.com/p?a=1&locale=fr#section"])
    }

    @Test("a bracket in a dictionary key is refused: it would reshape the nesting a server reads back")
    func bracketsInKeysAreRefused() {
        struct Profile: Encodable { let settings: [String: String] }
        #expect(throws: EncodingError.self) { try URLQueryEncoder().encode(Profile(settings: ["x][role": "admin"])) }
        #expect(throws: EncodingError.self) { try URLQueryEncoder().encode(["a[b]": "c"]) }
        #expect(throws: Never.self) { try URLQueryEncoder().encode(Profile(settings: ["theme": "dark"])) }
    }

    private func downloadDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func reportClient(size: Int) -> RestingClient {
        let stub = StubHTTPClient()
        stub.register(.get, "/report", .status(200, body: Data(repeating: 0x61, count: size)))
        return RestingClient(baseUrl: "https://api.example.com", httpClient: stub)
    }

    @Test("a symbolic link planted at the partial file (between its removal and its opening) is not followed")
    func partialFileSymlinkIsRefused() throws {
        let directory = try downloadDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let partial = directory.appendingPathComponent("report.txt.part")
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: victim)
        let sink = DownloadTarget.Writer(DownloadTarget(file: partial))
        #expect(throws: RestingError.self) { try sink.begin(status: 200, headers: [:]) }
        sink.close()
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    }

    @Test("a downloaded file is private (0600), and one past its size limit fails and leaves nothing behind")
    func downloadsArePrivateAndBounded() async throws {
        let directory = try downloadDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/report", encoding: .query))
        let small = directory.appendingPathComponent("small.txt")
        _ = try await reportClient(size: 100).download(report, to: small).value
        #expect(try FileManager.default.attributesOfItem(atPath: small.path)[.posixPermissions] as? Int == 0o600)

        let big = directory.appendingPathComponent("big.txt")
        let error = await restingError {
            try await reportClient(size: 100).download(report, to: big, maximumSize: 99).value
        }
        guard case .responseTooLarge(let limit) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 99)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["small.txt"])
    }
}
