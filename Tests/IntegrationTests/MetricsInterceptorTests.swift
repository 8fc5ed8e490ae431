#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import RestingCache
import RestingCore
import RestingCurl
import RestingMetrics
import RestingServerHarness
import RestingStreaming
import RestingTesting
import Testing

@Suite("swift-metrics: OpenTelemetry's HTTP client metrics", .timeLimit(.minutes(5)))
struct MetricsInterceptorTests {
    let metrics = TestMetrics()
    let stub = StubHTTPClient()
    let server = [("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443")]

    func client(_ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors)
    }

    func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    @Test(
        "each exchange is timed with its method, server and status (a 4xx or 5xx with the status as error.type); the active gauge goes up and back down"
    )
    func durationAndActive() async throws {
        stub.register(.get, "/posts", .status(200), .status(404))
        let client = client([MetricsInterceptor(factory: metrics)])
        _ = try await client.perform(get("/posts")).value
        _ = try? await client.perform(get("/posts")).value

        let ok = try metrics.expectTimer(
            "http.client.request.duration", server + [("http.response.status_code", "200")])
        let missing = try metrics.expectTimer(
            "http.client.request.duration", server + [("http.response.status_code", "404"), ("error.type", "404")])
        #expect(ok.values.count == 1 && missing.values.count == 1)
        #expect(ok.values.allSatisfy { $0 >= 0 })
        let active = try metrics.expectMeter("http.client.active_requests", server)
        #expect(active.values == [1, 0, 1, 0])
    }

    @Test("a failure is timed with its error.type, and leaves the active gauge at zero")
    func failures() async throws {
        let timeout = TransportError(kind: .timedOut, code: 28, domain: "test", message: "slow")
        stub.register(.get, "/slow", .failure(.transportFailed(timeout)))
        await #expect(throws: RestingError.self) {
            try await client([MetricsInterceptor(factory: metrics)]).perform(get("/slow")).value
        }
        let failed = try metrics.expectTimer("http.client.request.duration", server + [("error.type", "timedOut")])
        #expect(failed.values.count == 1)
        #expect(try metrics.expectMeter("http.client.active_requests", server).lastValue == 0)
    }

    @Test("behind a RetryInterceptor every attempt is timed and each retry counted")
    func retries() async throws {
        stub.register(.get, "/flaky", .status(503), .status(503), .status(200))
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        _ = try await client([RetryInterceptor(policy: policy), MetricsInterceptor(factory: metrics)])
            .perform(get("/flaky")).value
        let unavailable = server + [("http.response.status_code", "503"), ("error.type", "503")]
        #expect(try metrics.expectTimer("http.client.request.duration", unavailable).values.count == 2)
        #expect(try metrics.expectCounter("resting.client.retries", server).totalValue == 2)
    }

    @Test("a cache's answers are counted by status: a miss, then a hit that never reaches the network")
    func cacheResponses() async throws {
        stub.register(.get, "/cached", .status(200, headers: ["Cache-Control": "max-age=60"], body: Data("a".utf8)))
        let client = client([MetricsInterceptor(factory: metrics), HTTPCacheInterceptor(store: MemoryCacheStore())])
        _ = try await client.perform(get("/cached")).value
        _ = try await client.perform(get("/cached")).value
        #expect(stub.received.count == 1)
        for status in ["miss", "hit"] {
            let counter = try metrics.expectCounter(
                "resting.client.cache.responses", server + [("resting.cache_status", status)])
            #expect(counter.totalValue == 1)
        }
    }

    @Test("a streamed exchange is active and untimed until its body ends")
    func streamedBody() async throws {
        stub.register(.get, "/lines", .stream([.text("one\n"), .text("two\n")]))
        let body = try await client([MetricsInterceptor(factory: metrics)])
            .perform(RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query)))
            .value.body
        let completed = server + [("http.response.status_code", "200")]
        #expect(try metrics.expectMeter("http.client.active_requests", server).lastValue == 1)
        #expect(throws: TestMetricsError.self) { try metrics.expectTimer("http.client.request.duration", completed) }
        var lines: [String] = []
        for try await line in body { lines.append(line) }
        #expect(lines == ["one", "two"])
        #expect(try metrics.expectMeter("http.client.active_requests", server).lastValue == 0)
        #expect(try metrics.expectTimer("http.client.request.duration", completed).values.count == 1)
    }

    @Test("a streamed body its reader leaves early is timed until it left, and is no error")
    func streamedBodyLeft() async throws {
        stub.register(.get, "/lines", .stream([.text("one\n"), .text("two\n")]))
        let body = try await client([MetricsInterceptor(factory: metrics)])
            .perform(RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query)))
            .value.body
        for try await _ in body { break }
        let timer = try metrics.expectTimer(
            "http.client.request.duration", server + [("http.response.status_code", "200")])
        #expect(timer.values.count == 1)
        #expect(try metrics.expectMeter("http.client.active_requests", server).lastValue == 0)
    }

    @Test("over CurlClient, a new connection's connect phase and time to first byte are recorded")
    func phasesOverCurl() async throws {
        let conformance = try await LocalServer.sharedConformanceServer.value
        let url = try #require(URL(string: conformance.baseURL))
        let client = RestingClient(
            baseUrl: conformance.baseURL, httpClient: try CurlClient(),
            networkInterceptors: [MetricsInterceptor(factory: metrics)])
        _ = try await client.perform(get("/bytes/64")).value
        let local = [
            ("http.request.method", "GET"), ("server.address", url.host ?? ""), ("server.port", "\(url.port ?? 0)"),
        ]
        #expect(try metrics.expectTimer("resting.client.connect.duration", local).values.count == 1)
        #expect(try metrics.expectTimer("resting.client.time_to_first_byte", local).values.count == 1)
        #expect(throws: TestMetricsError.self) { try metrics.expectTimer("resting.client.tls.duration", local) }
    }
}
#endif
