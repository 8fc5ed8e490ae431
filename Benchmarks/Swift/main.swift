import Foundation
import RestingCache
import RestingCore
import RestingCurl
import RestingKitBenchmarkSupport
import RestingResilience
import RestingURLSession
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// One benchmark run, printing "requests seconds cpu_seconds voluntary_switches p50_us p99_us p999_us" like
// c/multi_get.c (the decode floor prints the first four only). BENCH_CURL_DRIVERS sets CurlClient's driver count.
//   RestingKitBenchmarks MODE URL CONCURRENCY TOTAL [CA_FILE]
// Modes: curl-executor, curl-pool, urlsession (the whole RestingKit pipeline), curl-send, curl-send-pool (the same
//        awaited with RestingClient.send), curl-call (curl-send's calls through RestingClient.call on an endpoint
//        function), curl-cached (its fresh cache hits), raw-urlsession,
//        transport-executor (CurlClient.send alone), decode-floor (a synchronous loop that only decodes),
//        raw-urlsession-delegate (data tasks through a minimal session delegate),
//        h2 (CONCURRENCY GETs at once over TLS with CA_FILE, to check HTTP/2 multiplexing),
//        h2-load (the whole pipeline's GETs over TLS with CA_FILE, on the executor; BENCH_H2_SPREAD=1 spreads the
//        origin's requests over the drivers, a connection each, instead of one connection),
//        curl-resilience (curl-executor with a deadline, a breaker and a rate limit, all quiet), curl-three-noop
//        (three no-op interceptors in their place), curl-breaker-open (calls an open breaker fails), curl-refused
//        (calls an interceptor fails at once, the floor of curl-breaker-open), hedged and unhedged (a chaos_server.py route's GETs, hedged or not).
// Streaming modes: urlsession-{upload-raw,upload-multipart,download} (Benchmarks/Support) and
//        raw-urlsession-upload-{fromfile,stream} URL FILE; CurlClient's are in RestingCurlStreamingBenchmark.

struct Post: Decodable, Sendable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
}

/// Does nothing, as three interceptors of a real app would do something cheap.
struct PassThrough: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await execution(request)
    }
}

/// Fails every call at once with the error an open circuit breaker throws, and does nothing else.
struct Refusing: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        throw ResilienceError.circuitOpen(key: "refused", retryAfter: .seconds(3600))
    }
}

extension CircuitBreakerInterceptor {
    /// A breaker that its first call opens for an hour: one call is enough, and a 200 counts as a failure.
    static func openedByItsFirstCall() -> CircuitBreakerInterceptor {
        var policy = Policy(minimumCalls: 1, openDuration: .seconds(3600))
        policy.failingStatuses = [200]
        return CircuitBreakerInterceptor(policy: policy)
    }
}

/// Performs `request` on `client`, which must refuse it as an open breaker does: a call that goes through ends the
/// benchmark, whose figure would otherwise be a network call's.
func performRefused<Response>(_ client: RestingClient, _ request: RestingRequest<Nothing, Response>) async throws {
    do {
        _ = try await client.perform(request).value
        FileHandle.standardError.write(Data("a call went through the refusing interceptor\n".utf8))
        exit(1)
    } catch ResilienceError.circuitOpen {}
}

/// Counts the events it hears, as a cheap real listener would (a metric, a ring buffer).
final class EventCounter: CallEventListener {
    let count = Atomic<Int>(0)
    func handle(_ event: CallEvent) { count.add(1, ordering: .relaxed) }
}

struct Usage {
    let seconds: Double
    let switches: Int

    static var now: Usage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return Usage(seconds: cpu, switches: Int(usage.ru_nvcsw))
    }
}

/// Runs `concurrency` loops that together complete `total` calls of `call`, on `executor` when given, timing each
/// call into the loop's own histogram.
func measure(
    concurrency: Int, total: Int, executor: (any TaskExecutor)?, _ call: @escaping @Sendable () async throws -> Void
) async throws {
    let usage = Usage.now
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: LatencyHistogram.self) { group in
        for worker in 0..<concurrency {
            let count = total / concurrency + (worker < total % concurrency ? 1 : 0)
            group.addTask(executorPreference: executor) {
                var latencies = LatencyHistogram()
                for _ in 0..<count {
                    let started = LatencyHistogram.now()
                    try await call()
                    latencies.record(nanoseconds: LatencyHistogram.now() - started)
                }
                return latencies
            }
        }
        return try await group.reduce(into: LatencyHistogram()) { $0.merge($1) }
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let used = Usage.now
    print(
        String(format: "%d %.6f %.6f %d", total, seconds, used.seconds - usage.seconds, used.switches - usage.switches)
            + latencies.summary)
}

/// A `CurlClient` with the driver count BENCH_CURL_DRIVERS asks for (one per core by default).
func curlClient() throws -> CurlClient {
    var configuration = CurlConfiguration()
    if let drivers = ProcessInfo.processInfo.environment["BENCH_CURL_DRIVERS"].flatMap(Int.init) {
        configuration.driverCount = drivers
    }
    return try CurlClient(configuration: configuration)
}

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1].hasPrefix("urlsession-"),
    case let action = String(arguments[1].dropFirst("urlsession-".count)), StreamingTransfer.actions.contains(action)
{
    try await StreamingTransfer.run(action, arguments[2...], httpClient: URLSessionClient())
    exit(0)
}
if arguments.count >= 4, arguments[1].hasPrefix("raw-urlsession-upload-"), let url = URL(string: arguments[2]) {
    // fromfile: the baseline the URLSession streaming figures are compared with. stream: FoundationNetworking's
    // own streamed upload (a data task reading an `InputStream(url:)`) on a session without a delegate, which
    // saves a delegate call per 64 KiB but follows redirects itself, dropping the body on a 307 or 308.
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    let file = URL(fileURLWithPath: arguments[3])
    try await StreamingTransfer.measure {
        if arguments[1].hasSuffix("stream") {
            request.httpBodyStream = InputStream(url: file)
            _ = try await URLSession.shared.data(for: request)
        } else {
            _ = try await URLSession.shared.upload(for: request, fromFile: file)
        }
        return StreamingTransfer.size(of: file)
    }
    exit(0)
}
if arguments.count == 3, arguments[1] == "stages", let total = Int(arguments[2]) {
    try await Stages.run(total: total)
    exit(0)
}
if (3...4).contains(arguments.count), arguments[1] == "pipeline-only", let total = Int(arguments[2]) {
    do {
        try await Stages.runPipelineOnly(total: total, links: arguments.count == 4 ? arguments[3] : "")
    } catch let unknown as Stages.UnknownLink {
        FileHandle.standardError.write(Data("pipeline-only: no link '\(unknown.letter)'; d, b, r or n\n".utf8))
        exit(2)
    }
    exit(0)
}
guard arguments.count >= 5, let concurrency = Int(arguments[3]), let total = Int(arguments[4]),
    let url = URL(string: arguments[2])
else {
    FileHandle.standardError.write(Data("usage: RestingKitBenchmarks MODE URL CONCURRENCY TOTAL [CA_FILE]\n".utf8))
    exit(2)
}
let mode = arguments[1]
let base = "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
let endpoint = Endpoint<Nothing, Post>(.get, url.path, encoding: .query)
let request = RestingRequest(endpoint: endpoint)

func pipeline(_ transport: any HTTPClient) -> RestingClient {
    RestingClient(baseUrl: base, httpClient: transport, interceptors: [PassThrough(), PassThrough(), PassThrough()])
}

/// The URLSession clients' configuration: as many connections per host as requests in flight.
func sessionConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = max(concurrency, 6)
    return configuration
}

switch mode {
case "curl-executor", "curl-pool":
    let client = pipeline(try curlClient())
    try await measure(concurrency: concurrency, total: total, executor: mode == "curl-executor" ? client.executor : nil)
    {
        _ = try await client.perform(request).value
    }
case "curl-listener":
    // curl-executor's pipeline with a listener that counts every event: what leaving the event stream on costs.
    let counter = EventCounter()
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(), interceptors: [PassThrough(), PassThrough(), PassThrough()],
        eventListener: .shared(counter))
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.perform(request).value
    }
    guard counter.count.load(ordering: .relaxed) >= total * 7 else {
        FileHandle.standardError.write(Data("the listener heard too few events\n".utf8))
        exit(1)
    }
case "curl-resilience":
    // curl-executor's pipeline with a deadline, a circuit breaker and a rate limit installed and quiet: what the
    // resilience links cost a call that never meets them.
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(),
        interceptors: [
            DeadlineInterceptor(callTimeout: .seconds(60), attemptTimeout: .seconds(30)), CircuitBreakerInterceptor(),
            RateLimitInterceptor(limit: .init(requests: 100_000_000, per: .seconds(1))),
            PassThrough(), PassThrough(), PassThrough(),
        ])
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.perform(request).value
    }
case "curl-three-noop":
    // curl-executor's pipeline with three more no-op interceptors where curl-resilience has its three links: the
    // floor of any three links, which pay the chain's hops whatever they do.
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(), interceptors: Array(repeating: PassThrough(), count: 6))
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.perform(request).value
    }
case "curl-breaker-open", "curl-refused":
    // Calls an open circuit breaker fails — its first call (a 200, counted as a failure here) opens it for an hour —
    // or, where the breaker stands, an interceptor that refuses at once and does nothing else: the floor of any
    // refused call (converter, promise, chain, the failure's way back).
    let refusing: any RestingInterceptor =
        mode == "curl-refused" ? Refusing() : CircuitBreakerInterceptor.openedByItsFirstCall()
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(),
        interceptors: [refusing, PassThrough(), PassThrough(), PassThrough()])
    if mode == "curl-breaker-open" { _ = try await client.perform(request).value }
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        try await performRefused(client, request)
    }
case "hedged", "unhedged":
    // GETs of a chaos_server.py route whose answers are sometimes late, hedged at the 95th percentile of the
    // latencies seen, or not: their latency percentiles.
    let hedging = HedgingInterceptor(delay: .percentile(0.95, fallback: .milliseconds(20)))
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(), interceptors: mode == "hedged" ? [hedging] : [])
    let get = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, url.path))
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.perform(get).value
    }
case "curl-send", "curl-send-pool":
    // The same pipeline awaited in the calling task, without a promise.
    let client = pipeline(try curlClient())
    try await measure(concurrency: concurrency, total: total, executor: mode == "curl-send" ? client.executor : nil) {
        _ = try await client.send(request)
    }
case "curl-call":
    // curl-send's calls as an app writes them with endpoint functions: the endpoint made for every call, its path
    // interpolated (and so encoded and parsed) each time, the body returned.
    let client = pipeline(try curlClient())
    let name = String(url.path.dropFirst())
    @Sendable func post(_ name: String) -> Endpoint<Nothing, Post> { Endpoint(.get, "/\(name)") }
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.call(post(name))
    }
case "curl-call-static":
    // curl-send's calls through call on the same static endpoint: what call itself adds to send.
    let client = pipeline(try curlClient())
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.call(request.endpoint)
    }
case "curl-cached":
    // Fresh hits through the whole pipeline: the cache is warmed by the first call, then never leaves the process.
    let cache = HTTPCacheInterceptor(store: MemoryCacheStore())
    let client = RestingClient(
        baseUrl: base, httpClient: try curlClient(),
        interceptors: [PassThrough(), PassThrough(), PassThrough()], networkInterceptors: [cache])
    guard try await client.perform(request).value.cacheStatus == .miss,
        try await client.perform(request).value.cacheStatus == .hit
    else {
        FileHandle.standardError.write(Data("the cached resource is not served from the cache\n".utf8))
        exit(1)
    }
    try await measure(concurrency: concurrency, total: total, executor: client.executor) {
        _ = try await client.perform(request).value
    }
case "transport-executor":
    // The transport alone, without converter, interceptors or decoding: where the pipeline's cost starts.
    let transport = try curlClient()
    let httpRequest = HTTPRequest(method: .get, url: url)
    try await measure(concurrency: concurrency, total: total, executor: transport.executor) {
        _ = try await transport.send(httpRequest) { _ in }
    }
case "decode-floor":
    try DecodingFloor.run(url: url, concurrency: concurrency, total: total)
case "decode-only":
    // JSONDecoder alone on the benchmark's body: the floor the pipeline's "decoding" step adds per request.
    let body = Data(#"{"id":1,"userId":1,"title":"Hello","body":"A small JSON body for the benchmark"}"#.utf8)
    let decoder = JSONDecoder()
    try await measure(concurrency: 1, total: total, executor: nil) { _ = try decoder.decode(Post.self, from: body) }
case "urlsession":
    let client = pipeline(URLSessionClient(configuration: sessionConfiguration()))
    try await measure(concurrency: concurrency, total: total, executor: nil) {
        _ = try await client.perform(request).value
    }
case "raw-urlsession":
    let session = URLSession(configuration: sessionConfiguration())
    let urlRequest = URLRequest(url: url)
    try await measure(concurrency: concurrency, total: total, executor: nil) {
        let (data, _) = try await session.data(for: urlRequest)
        _ = try JSONDecoder().decode(Post.self, from: data)
    }
case "raw-urlsession-delegate":
    let session = DelegateSession(configuration: sessionConfiguration())
    let urlRequest = URLRequest(url: url)
    try await measure(concurrency: concurrency, total: total, executor: nil) {
        _ = try JSONDecoder().decode(Post.self, from: try await session.data(for: urlRequest))
    }
case "h2":
    var configuration = CurlConfiguration()
    configuration.tls.caFile = arguments.count > 5 ? arguments[5] : nil
    let transport = try CurlClient(configuration: configuration)
    let versions = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<concurrency {
            group.addTask { try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }.status }
        }
        var statuses: [Int] = []
        for try await status in group { statuses.append(status) }
        return statuses
    }
    print("statuses \(versions.map(String.init).joined(separator: ","))")
case "h2-load":
    var configuration = CurlConfiguration()
    configuration.tls.caFile = arguments.count > 5 ? arguments[5] : nil
    configuration.spreadsHTTP2Origins = ProcessInfo.processInfo.environment["BENCH_H2_SPREAD"] == "1"
    // BENCH_HTTP3=1: HTTP/3 only (Benchmarks/http3.py), on a build against a libcurl that speaks it.
    if ProcessInfo.processInfo.environment["BENCH_HTTP3"] == "1" { configuration.httpVersion = .http3Only }
    let transport = try CurlClient(configuration: configuration)
    let client = RestingClient(
        baseUrl: "\(url.scheme ?? "https")://\(url.host ?? "127.0.0.1"):\(url.port ?? 443)", httpClient: transport)
    let request = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, url.path, encoding: .query))
    try await measure(concurrency: concurrency, total: total, executor: transport.executor) {
        _ = try await client.perform(request).value
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(2)
}
