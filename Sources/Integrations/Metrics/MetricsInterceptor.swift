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
///   its last byte), with `http.response.status_code` and `network.protocol.version` (where the transport tells it),
///   or `error.type` for a failure (a transport failure's kind, `cancelled`, …);
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
public struct MetricsInterceptor: RestingInterceptor {
    /// Where the metrics go: the bootstrapped `MetricsSystem.factory` unless told otherwise (a test's).
    public let factory: any MetricsFactory

    /// An interceptor recording into `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// Records the exchange `execution` performs.
    public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        let server = Self.server(of: request)
        let active = Meter(label: "http.client.active_requests", dimensions: server, factory: factory)
        active.increment()
        if request.attributes.attempt > 1 {
            Counter(label: "resting.client.retries", dimensions: server, factory: factory).increment()
        }
        let started = ContinuousClock.now
        var response: HTTPDataResponse
        do {
            response = try await execution(request)
        } catch {
            active.decrement()
            let failure = RestingError.errorType(of: error)
            record(since: started, server + [("error.type", failure)])
            throw error
        }
        recordPhases(of: response, server)
        if let cacheStatus = response.cacheStatus {
            let dimensions = server + [("resting.cache_status", cacheStatus.rawValue)]
            Counter(label: "resting.client.cache.responses", dimensions: dimensions, factory: factory).increment()
        }
        var completed = server + [("http.response.status_code", String(response.status))]
        if let version = response.metrics?.protocolVersion { completed.append(("network.protocol.version", version)) }
        guard let stream = response.body.stream else {
            active.decrement()
            record(since: started, completed)
            return response
        }
        // A streamed exchange lasts until its body ends, however it ends.
        response.body = ResponseBody(
            stream.observed(
                onChunk: { _ in },
                onEnd: { [completed] error in
                    active.decrement()
                    record(since: started, error.map { completed + [("error.type", $0.errorType)] } ?? completed)
                }))
        return response
    }

    private func record(since start: ContinuousClock.Instant, _ dimensions: [(String, String)]) {
        Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
            .recordNanoseconds((ContinuousClock.now - start).wholeNanoseconds)
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

    /// The dimensions every metric of `request` carries.
    private static func server(of request: HTTPRequest) -> [(String, String)] {
        let url = request.url
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return [
            ("http.request.method", request.method.rawValue), ("server.address", url.host ?? ""),
            ("server.port", String(port)),
        ]
    }
}
#endif
