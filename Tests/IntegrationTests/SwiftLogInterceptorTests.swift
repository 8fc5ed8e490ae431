#if Logging
import Foundation
import Logging
import RestingCore
import RestingLogging
import RestingStreaming
import RestingTesting
import Testing

/// A swift-log handler that keeps every entry, for the assertions.
final class CapturedLog: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.entries.withLock {
                $0.append(Entry(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
            }
        }
    }

    let entries = Locked<[Entry]>([])

    /// A logger writing here, passing `level` and above.
    func logger(level: Logger.Level = .trace) -> Logger {
        Logger(label: "test") { _ in Handler(log: self, logLevel: level) }
    }
}

@Suite("swift-log: every exchange as structured metadata")
struct SwiftLogInterceptorTests {
    let stub = StubHTTPClient()
    let log = CapturedLog()

    func client(_ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors)
    }

    @Test("a successful exchange: method, redacted URL, status, duration and size, at debug; the request at trace")
    func success() async throws {
        stub.register(.get, "/posts", try .json(["a", "b"]))
        var request = RestingRequest(endpoint: Endpoint<Nothing, [String]>(.get, "/posts", encoding: .query))
        request.queryItems = [
            URLQueryItem(name: "access_token", value: "s3cret"), URLQueryItem(name: "page", value: "2"),
        ]
        request.headers = ["Authorization": "Bearer s3cret"]
        _ = try await client([SwiftLogInterceptor(logger: log.logger())]).perform(request).value

        let entries = log.entries.withLock { $0 }
        try #require(entries.count == 2)
        #expect(entries[0].level == .trace)
        #expect(entries[1].level == .debug)
        let metadata = entries[1].metadata
        #expect(metadata["http.request.method"] == "GET")
        #expect(metadata["http.response.status_code"] == "200")
        #expect(metadata["http.response.body.size"] == "9")
        #expect(metadata["resting.duration_ms"] != nil)
        #expect(metadata["error.type"] == nil)
        let url = "\(metadata["url.full"] ?? "")"
        #expect(url.hasPrefix("https://api.example.com/posts?") && url.contains("page=2"))
        let everything = entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("s3cret"), "no credential in any entry: \(everything)")
        #expect("\(entries[0].metadata["http.request.header"] ?? "")".contains("authorization"))
    }

    @Test("levels follow the outcome: 4xx warning, 5xx error, a transport failure error; each with its error.type")
    func levels() async throws {
        stub.register(.get, "/missing", .status(404))
        stub.register(.get, "/broken", .status(503))
        stub.register(
            .get, "/slow",
            .failure(.transportFailed(TransportError(kind: .timedOut, code: 28, domain: "test", message: "slow"))))
        let client = client([SwiftLogInterceptor(logger: log.logger(level: .debug))])
        for path in ["/missing", "/broken", "/slow"] {
            _ = try? await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
            )
            .value
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.map(\.level) == [.warning, .error, .error])
        #expect(entries.map { $0.metadata["http.response.status_code"] } == ["404", "503", nil])
        #expect(entries.map { $0.metadata["error.type"] } == ["404", "503", "timedOut"])
    }

    @Test("behind a RetryInterceptor each attempt is an entry with its number")
    func attempts() async throws {
        stub.register(.get, "/flaky", .status(503), .status(503), .status(200))
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        let retry = RetryInterceptor(policy: policy)
        _ = try await client([retry, SwiftLogInterceptor(logger: log.logger(level: .debug))])
            .perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/flaky", encoding: .query))).value
        let entries = log.entries.withLock { $0 }
        #expect(entries.map { $0.metadata["resting.attempt"] } == [nil, "2", "3"])
        #expect(entries.map { $0.metadata["http.response.status_code"] } == ["503", "503", "200"])
    }

    @Test("a streamed body logs its head, then its size when it ends; a request at log level none logs nothing")
    func streamedAndSilenced() async throws {
        stub.register(.get, "/lines", .stream([.text("one\n"), .text("two\n")]))
        stub.register(.get, "/quiet", .status(200))
        let client = client([SwiftLogInterceptor(logger: log.logger(level: .debug))])
        var lines: [String] = []
        let body = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query))
        ).value.body
        for try await line in body { lines.append(line) }
        #expect(lines == ["one", "two"])

        var quiet = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/quiet", encoding: .query))
        quiet.attributes.logLevel = LogLevel.none
        _ = try await client.perform(quiet).value

        let entries = log.entries.withLock { $0 }
        #expect(
            entries.map(\.message) == [
                "← 200 GET https://api.example.com/lines", "← GET https://api.example.com/lines body ended",
            ])
        #expect(entries[0].metadata["http.response.body.size"] == nil)
        #expect(entries[1].metadata["http.response.body.size"] == "8")
    }
}
#endif
