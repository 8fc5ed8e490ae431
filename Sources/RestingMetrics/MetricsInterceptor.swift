#if Metrics
import CoreMetrics
import RestingCore

/// Counts and times every exchange through swift-metrics, named and labelled as OpenTelemetry's HTTP client
/// conventions say, so that a service's dashboards show RestingKit's calls beside every other client's.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: transport,
///     interceptors: [RetryInterceptor()], networkInterceptors: [MetricsInterceptor()])
/// ```
///
/// What it records, each with the dimensions `http.request.method`, `server.address` and `server.port`:
/// - `http.client.request.duration` (a timer): from the request to the end of the response (for a streamed body,
///   its last byte, or the moment its reader left it), with `http.response.status_code` and
///   `network.protocol.version` (where the transport tells it), and `error.type` where the exchange ended in error:
///   a failure's type (a transport failure's kind, `cancelled`, …) or, OpenTelemetry counting a status of 400 or
///   more as a client's error, the status (`503`);
/// - `http.client.active_requests` (a meter): exchanges in flight, up when one starts, down when it ends;
/// - `resting.client.dns.duration`, `resting.client.connect.duration`, `resting.client.tls.duration` and
///   `resting.client.time_to_first_byte` (timers), where the transport measured them (`CurlClient` does; a reused
///   connection has no DNS, connect or TLS phase);
/// - `resting.client.retries` (a counter): the sends after a call's first, which ``/RestingCore/RetryInterceptor``
///   numbers (``/RestingCore/RequestAttributes/attempt``);
/// - `resting.client.cache.responses` (a counter) with `resting.cache_status` (`hit`, `miss`, `revalidated`, …)
///   for each response an HTTP cache answered or looked at.
///
/// Among the network interceptors it records every attempt and redirect hop, which is what OpenTelemetry's
/// `http.client.request.duration` describes; among the application interceptors, each call once.
public struct MetricsInterceptor: RestingInterceptor, ExchangeObserver {
    /// Where the metrics go: the bootstrapped `MetricsSystem.factory` unless told otherwise (a test's).
    public let factory: any MetricsFactory

    /// An interceptor recording into `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// Records the exchange `execution` performs.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await observe(request) { try await execution($0) }
    }

    /// An exchange being measured: the dimensions of its server, and the meter it counts in.
    package typealias Observation = (server: [(String, String)], active: Meter)

    package func willSend(_ request: inout HTTPRequest) -> Observation? {
        let server = SemanticAttribute.server(of: request).map { ($0.key, $0.text) }
        let active = Meter(label: "http.client.active_requests", dimensions: server, factory: factory)
        active.increment()
        if request.attributes.attempt > 1 {
            Counter(label: "resting.client.retries", dimensions: server, factory: factory).increment()
        }
        return (server, active)
    }

    /// An exchange lasts until its body ends, however it ends.
    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ exchange: Observation) {
        exchange.active.decrement()
        let dimensions = exchange.server + ending.outcomeAttributes.map { ($0.key, $0.text) }
        Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
            .recordNanoseconds(ending.duration.wholeNanoseconds)
        if let cacheStatus = ending.response?.cacheStatus {
            let dimensions = exchange.server + [("resting.cache_status", cacheStatus.rawValue)]
            Counter(label: "resting.client.cache.responses", dimensions: dimensions, factory: factory).increment()
        }
        guard let metrics = ending.response?.metrics else { return }
        let phases = [
            ("resting.client.dns.duration", metrics.nameLookup), ("resting.client.connect.duration", metrics.connect),
            ("resting.client.tls.duration", metrics.tlsHandshake),
            ("resting.client.time_to_first_byte", metrics.timeToFirstByte),
        ]
        for case (let label, let duration?) in phases where duration > .zero {
            Timer(label: label, dimensions: exchange.server, factory: factory).recordNanoseconds(
                duration.wholeNanoseconds)
        }
    }
}
#endif
