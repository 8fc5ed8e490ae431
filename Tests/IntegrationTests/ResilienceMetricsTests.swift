#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import RestingCore
import RestingMetrics
import RestingResilience
import RestingTesting
import Testing

@Suite("swift-metrics: what the resilience links did")
struct ResilienceMetricsTests {
    let metrics = TestMetrics()
    let stub = StubHTTPClient()
    let key = [("resting.resilience.key", "https://api.example.com:443")]
    let items = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/items"))

    private func client(_ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors,
            eventListener: .shared(ResilienceMetrics(factory: metrics)))
    }

    @Test("a breaker's transitions and the calls it fails fast are counted")
    func breaker() async throws {
        stub.register(.get, "/items", .status(503), .status(503))
        let breaker = CircuitBreakerInterceptor(policy: .init(minimumCalls: 2), clock: VirtualClock())
        let client = client([breaker])
        for _ in 0..<3 { _ = try? await client.perform(items).value }
        let opened = try metrics.expectCounter(
            "resting.client.circuit_breaker.transitions", key + [("resting.circuit_breaker.state", "open")])
        #expect(opened.totalValue == 1)
        #expect(try metrics.expectCounter("resting.client.rejections", [("error.type", "circuitOpen")]).totalValue == 1)
    }

    @Test("a rate limit's waits are timed and its pauses counted; a concurrency limit is recorded per call")
    func limits() async throws {
        stub.register(.get, "/items", .status(429, headers: ["Retry-After": "1"]), .status(200))
        let client = client([
            RateLimitInterceptor(limit: .init(requests: 100, per: .seconds(1)), clock: VirtualClock()),
            ConcurrencyLimitInterceptor(.fixed(4)),
        ])
        _ = try? await client.perform(items).value
        _ = try await client.perform(items).value
        #expect(try metrics.expectCounter("resting.client.rate_limit.pauses", key).totalValue == 1)
        #expect(try metrics.expectTimer("resting.client.rate_limit.wait", key).values == [1_000_000_000])
        #expect(try metrics.expectRecorder("resting.client.concurrency_limit", key).values == [4, 4])
    }

    @Test("a hedge is counted")
    func hedges() async throws {
        stub.register(.get, "/items", StubResponse.status(200).delayed(by: .seconds(3600)), .status(200))
        _ = try await client([HedgingInterceptor(delay: .fixed(.milliseconds(1)), clock: VirtualClock())])
            .perform(items).value
        #expect(try metrics.expectCounter("resting.client.hedges").totalValue == 1)
    }
}
#endif
