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
    public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await observe(request) { try await execution($0) }
    }

    /// An exchange being measured: the dimensions of its server, and the meter it counts in.
    package struct Observation: Sendable {
        let server: [(String, String)]
        let active: Meter
    }

    package func willSend(_ request: inout HTTPRequest) -> Observation? {
        let (address, port) = request.server
        let server = [
            ("http.request.method", request.method.rawValue), ("server.address", address),
            ("server.port", String(port)),
        ]
        let active = Meter(label: "http.client.active_requests", dimensions: server, factory: factory)
        active.increment()
        if request.attributes.attempt > 1 {
            Counter(label: "resting.client.retries", dimensions: server, factory: factory).increment()
        }
        return Observation(server: server, active: active)
    }

    package func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ exchange: Observation
    ) {
        recordPhases(of: response, exchange.server)
        if let cacheStatus = response.cacheStatus {
            let dimensions = exchange.server + [("resting.cache_status", cacheStatus.rawValue)]
            Counter(label: "resting.client.cache.responses", dimensions: dimensions, factory: factory).increment()
        }
    }

    /// An exchange lasts until its body ends, however it ends.
    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ exchange: Observation) {
        exchange.active.decrement()
        var dimensions = exchange.server
        if let head = ending.response {
            dimensions.append(("http.response.status_code", String(head.status)))
            if let version = head.metrics?.protocolVersion { dimensions.append(("network.protocol.version", version)) }
        }
        if let errorType = ending.errorType { dimensions.append(("error.type", errorType)) }
        Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
            .recordNanoseconds(ending.duration.wholeNanoseconds)
    }

    private func recordPhases(of response: HTTPDataResponse, _ server: [(String, String)]) {
        guard let metrics = response.metrics else { return }
        let phases: [(String, Duration?)] = [
            ("resting.client.dns.duration", metrics.nameLookup), ("resting.client.connect.duration", metrics.connect),
            ("resting.client.tls.duration", metrics.tlsHandshake),
            ("resting.client.time_to_first_byte", metrics.timeToFirstByte),
        ]
        for (label, duration) in phases {
            guard let duration, duration > .zero else { continue }
            Timer(label: label, dimensions: server, factory: factory).recordNanoseconds(duration.wholeNanoseconds)
        }
    }
}
#endif
