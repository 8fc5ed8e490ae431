import Foundation
import RestingCore
import RestingCurl
import RestingResilience

/// CPU per call of each stage of the pipeline, measured alone in one task on CurlClient's executor (where the
/// pipeline runs in `make bench`) with no network, so that the README's cost table (and the next regression)
/// can be read stage by stage (each stage's cheapest of ``rounds`` rounds, taken in turns; what a link or a listener
/// adds, the median of as many differences, each against the pipeline without it measured beside it):
///
///     RestingKitBenchmarks stages TOTAL
///
/// The transport's own share comes from `make bench` (`curl-transport` against the C loops).
enum Stages {
    static let baseUrl = "http://127.0.0.1:8080"
    /// The address every stage's request goes to (a literal, so it always parses).
    static let url = URL(string: baseUrl + "/post.json")!
    static let body = Data(#"{"id":1,"userId":1,"title":"Hello","body":"A small JSON body for the benchmark"}"#.utf8)

    /// Answers at once with the benchmark's body: the pipeline without a transport, on `executor`. The response
    /// is made once, so that the stages measure the pipeline and not a stand-in transport's work (a real one's
    /// is in `make bench`'s transport rows).
    struct InstantTransport: HTTPClient {
        let executor: (any TaskExecutor)?
        private let response: HTTPDataResponse

        init(executor: (any TaskExecutor)?, url: URL) {
            self.executor = executor
            response = HTTPDataResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: ResponseBody(Stages.body), url: url)
        }

        func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
            response
        }
    }

    /// Rounds over which each stage's cheapest is kept.
    static let rounds = 20

    /// Microseconds per call of `work`, run `total` times in a row. Elapsed time of the one task, which is the CPU
    /// time it takes on its thread (the cheapest round has no other process in it): `getrusage` counts CPU time
    /// in scheduler ticks, too coarse for a stage read as the difference of two rounds (it printed a negative
    /// chain).
    static func cost(_ total: Int, _ work: () async throws -> Void) async rethrows -> Double {
        for _ in 0..<min(total / 10, 1000) { try await work() }  // warm caches and lazy metadata first
        let start = ContinuousClock.now
        for _ in 0..<total { try await work() }
        let elapsed = (ContinuousClock.now - start).components
        return (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18) / Double(total) * 1e6
    }

    static func run(total: Int) async throws {
        // The client must outlive the measurement: once it is released, its executor hands jobs to the global pool.
        let transport = try CurlClient()
        let executor = transport.executor
        try await Task(executorPreference: executor) { try await measure(total: total, executor: executor) }.value
        withExtendedLifetime(transport) {}
    }

    /// The whole pipeline without a transport, `total` times and nothing else, for a profile or for counts of
    /// events (`perf stat`, uprobes) that repeat where timings do not. `links` puts links before the three no-op
    /// interceptors, one letter each: `d` a quiet deadline, `b` a closed breaker, `r` a rate limit with tokens, `n`
    /// one more no-op; so that a profile of `pipeline-only N dbr` against `pipeline-only N nnn` shows the links' own
    /// work.
    static func runPipelineOnly(total: Int, links: String = "") async throws {
        let transport = try CurlClient()
        let executor = transport.executor
        let chosen = try links.map(link)
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: InstantTransport(executor: executor, url: url),
            interceptors: chosen + [PassThrough(), PassThrough(), PassThrough()])
        let request = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/post.json", encoding: .query))
        try await Task(executorPreference: executor) {
            for _ in 0..<total { _ = try await client.perform(request).value }
        }.value
        withExtendedLifetime(transport) {}
    }

    /// The link a letter of `pipeline-only` names, as `stages` measures it: quiet, every call well within its limits.
    static func link(_ letter: Character) throws -> any RestingInterceptor {
        switch letter {
        case "d": DeadlineInterceptor(callTimeout: .seconds(60), attemptTimeout: .seconds(30))
        case "b": CircuitBreakerInterceptor()
        case "r": RateLimitInterceptor(limit: .init(requests: 100_000_000, per: .seconds(1)))
        case "n": PassThrough()
        default: throw UnknownLink(letter: letter)
        }
    }

    /// A letter `pipeline-only` does not know as a link.
    struct UnknownLink: Error {
        let letter: Character
    }

    private static func measure(total: Int, executor: (any TaskExecutor)?) async throws {
        let endpoint = Endpoint<Nothing, Post>(.get, "/post.json", encoding: .query)
        let request = RestingRequest(endpoint: endpoint)
        let converter = RestingRequestConverter()
        let decoder = JSONDecoder()
        let bare = RestingClient(baseUrl: baseUrl, httpClient: InstantTransport(executor: executor, url: url))
        let chained = RestingClient(
            baseUrl: baseUrl, httpClient: InstantTransport(executor: executor, url: url),
            interceptors: [PassThrough(), PassThrough(), PassThrough()])
        let listened = RestingClient(
            baseUrl: baseUrl, httpClient: InstantTransport(executor: executor, url: url),
            interceptors: [PassThrough(), PassThrough(), PassThrough()], eventListener: .shared(EventCounter()))
        let resilient = { (links: [any RestingInterceptor]) in
            RestingClient(
                baseUrl: baseUrl, httpClient: InstantTransport(executor: executor, url: url),
                interceptors: links + [PassThrough(), PassThrough(), PassThrough()])
        }
        let deadline = resilient([try link("d")])
        let breaker = resilient([try link("b")])
        let limiter = resilient([try link("r")])
        let oneMore = resilient([try link("n")])
        let refusing = resilient([Refusing()])
        let openBreaker = resilient([CircuitBreakerInterceptor.openedByItsFirstCall()])
        _ = try await openBreaker.perform(request).value

        // The stages take turns, round after round, and each keeps its cheapest round: this machine's speed
        // changes from one second to the next, and a slow spell would otherwise land on one stage only.
        let stages: [() async throws -> Void] = [
            { _ = try converter.toHTTPRequest(request, baseUrl: baseUrl) },
            { _ = try decoder.decode(Post.self, from: body) },
            { _ = try await ProgressablePromise(executorPreference: executor) { _ in 1 }.value },
            { _ = try await bare.perform(request).value },
            { _ = try await chained.perform(request).value },
            { _ = try await chained.send(request) },
            { try await performRefused(refusing, request) },
            { try await performRefused(openBreaker, request) },
        ]
        // What one thing adds to the chained pipeline is a difference of two figures near 10 µs: each is measured
        // next to a round of the pipeline without it, and the median of those differences is kept, which a slow
        // spell moves less than the difference of two stages' cheapest rounds taken seconds apart (that read 1.3 µs
        // for a quiet link whose paired rounds differ by 2–2.5 µs, and whose network figure agrees with the latter).
        let additions: [() async throws -> Void] = [
            { _ = try await listened.perform(request).value },
            { _ = try await oneMore.perform(request).value },
            { _ = try await deadline.perform(request).value },
            { _ = try await breaker.perform(request).value },
            { _ = try await limiter.perform(request).value },
        ]
        let withoutAddition = stages[4]
        var cheapest = Array(repeating: Double.infinity, count: stages.count)
        var added = Array(repeating: [Double](), count: additions.count)
        for round in 0..<rounds {
            for (index, stage) in stages.enumerated() {
                cheapest[index] = min(cheapest[index], try await cost(total / rounds, stage))
            }
            for (index, addition) in additions.enumerated() {
                // Which of the two goes first alternates, so that neither always runs on caches the other warmed.
                let first = try await cost(total / rounds, round.isMultiple(of: 2) ? withoutAddition : addition)
                let second = try await cost(total / rounds, round.isMultiple(of: 2) ? addition : withoutAddition)
                added[index].append(round.isMultiple(of: 2) ? second - first : first - second)
            }
        }
        let addedCost = added.map { $0.sorted()[$0.count / 2] }
        let (converting, decoding, promising, pipeline, withChain, sent) = (
            cheapest[0], cheapest[1], cheapest[2], cheapest[3], cheapest[4], cheapest[5]
        )
        let rows = [
            ("converter", converting), ("decode (JSONDecoder)", decoding), ("promise (create + await)", promising),
            ("chain of 3 no-op interceptors", withChain - pipeline),
            ("rest: status check, response, call bookkeeping", pipeline - converting - decoding - promising),
            ("whole pipeline without a transport", withChain),
            ("the same awaited with send (no promise)", sent),
            ("a listener counting every event (added)", addedCost[0]),
            ("one more no-op interceptor (added)", addedCost[1]),
            ("a quiet DeadlineInterceptor (added)", addedCost[2]),
            ("a closed CircuitBreakerInterceptor (added)", addedCost[3]),
            ("a RateLimitInterceptor with tokens (added)", addedCost[4]),
            ("a call its first interceptor refuses", cheapest[6]),
            ("a call an open CircuitBreakerInterceptor refuses", cheapest[7]),
        ]
        for (stage, microseconds) in rows {
            print(stage.padding(toLength: 48, withPad: " ", startingAt: 0) + String(format: "%6.2f", microseconds))
        }
    }
}
