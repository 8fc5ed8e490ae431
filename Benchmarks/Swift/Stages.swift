import Foundation
import RestingCore
import RestingCurl

/// CPU per call of each stage of the pipeline, measured alone in one task on CurlClient's executor (where the
/// pipeline runs in `make bench`) with no network, so that the README's cost table (and the next regression)
/// can be read stage by stage:
///
///     RestingKitBenchmarks stages TOTAL
///
/// The transport's own share comes from `make bench` (`curl-transport` against the C loops).
enum Stages {
    static let body = Data(#"{"id":1,"userId":1,"title":"Hello","body":"A small JSON body for the benchmark"}"#.utf8)

    /// Answers at once with the benchmark's body: the pipeline without a transport, on `executor`.
    struct InstantTransport: HTTPClient {
        let executor: (any TaskExecutor)?
        func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
            HTTPDataResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Stages.body, url: request.url)
        }
    }

    /// CPU microseconds per call of `work`, run `total` times in a row.
    static func cost(_ total: Int, _ work: () async throws -> Void) async rethrows -> Double {
        for _ in 0..<min(total / 10, 1000) { try await work() }  // warm caches and lazy metadata first
        let before = Usage.now
        for _ in 0..<total { try await work() }
        return (Usage.now.seconds - before.seconds) / Double(total) * 1e6
    }

    static func run(total: Int) async throws {
        let executor = try CurlClient().executor
        try await Task(executorPreference: executor) { try await measure(total: total, executor: executor) }.value
    }

    /// The whole pipeline without a transport, `total` times and nothing else: for instruction counts under
    /// `valgrind --tool=callgrind`, which repeat exactly where timings do not.
    static func runPipelineOnly(total: Int) async throws {
        let executor = try CurlClient().executor
        let client = RestingClient(
            baseUrl: "http://127.0.0.1:8080", httpClient: InstantTransport(executor: executor),
            interceptors: [PassThrough(), PassThrough(), PassThrough()])
        let request = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/post.json", encoding: .query))
        try await Task(executorPreference: executor) {
            for _ in 0..<total { _ = try await client.perform(request).value }
        }.value
    }

    private static func measure(total: Int, executor: (any TaskExecutor)?) async throws {
        let endpoint = Endpoint<Nothing, Post>(.get, "/post.json", encoding: .query)
        let request = RestingRequest(endpoint: endpoint)
        let converter = RestingRequestConverter()
        let decoder = JSONDecoder()
        let bare = RestingClient(baseUrl: "http://127.0.0.1:8080", httpClient: InstantTransport(executor: executor))
        let chained = RestingClient(
            baseUrl: "http://127.0.0.1:8080", httpClient: InstantTransport(executor: executor),
            interceptors: [PassThrough(), PassThrough(), PassThrough()])

        let converting = try await cost(total) {
            _ = try converter.toHTTPRequest(request, baseUrl: "http://127.0.0.1:8080")
        }
        let decoding = try await cost(total) { _ = try decoder.decode(Post.self, from: body) }
        let promising = try await cost(total) {
            _ = try await ProgressablePromise(executorPreference: executor) { _ in 1 }.value
        }
        let pipeline = try await cost(total) { _ = try await bare.perform(request).value }
        let withChain = try await cost(total) { _ = try await chained.perform(request).value }
        let rows = [
            ("converter", converting), ("decode (JSONDecoder)", decoding), ("promise (create + await)", promising),
            ("chain of 3 no-op interceptors", withChain - pipeline),
            ("rest: status check, response, call bookkeeping", pipeline - converting - decoding - promising),
            ("whole pipeline without a transport", withChain),
        ]
        for (stage, microseconds) in rows {
            print(stage.padding(toLength: 48, withPad: " ", startingAt: 0) + String(format: "%6.2f", microseconds))
        }
    }
}
