#if Metrics
import CoreMetrics
import RestingCore
import RestingResilience

/// Records what the resilience links did through swift-metrics, from a client's event stream: breaker transitions,
/// calls failed fast, rate-limit waits and pauses, concurrency limits and their waits, hedges.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: transport,
///     interceptors: [CircuitBreakerInterceptor(), RetryInterceptor(), RateLimitInterceptor(limit: limit)],
///     eventListener: .shared(ResilienceMetrics()))
/// ```
///
/// What it records (`resting.resilience.key` is the key the link keeps its state under, by default the origin):
/// - `resting.client.circuit_breaker.transitions` (a counter) with `resting.resilience.key` and
///   `resting.circuit_breaker.state`, the state the breaker went to;
/// - `resting.client.rejections` (a counter) with `error.type`: calls a link failed at once — `circuitOpen`,
///   `rateLimited`, `loadShed` — or that ran out of time, `deadlineExceeded`;
/// - `resting.client.rate_limit.wait` (a timer) and `resting.client.rate_limit.pauses` (a counter), by key;
/// - `resting.client.concurrency_limit` (a recorder: the limit each call was admitted under) and
///   `resting.client.concurrency_limit.wait` (a timer), by key;
/// - `resting.client.hedges` (a counter): hedges sent.
///
/// A client has one listener: an app that has one of its own hands each event to this one too.
public struct ResilienceMetrics: CallEventListener {
    /// Where the metrics go: the bootstrapped `MetricsSystem.factory` unless told otherwise (a test's).
    public let factory: any MetricsFactory

    /// A listener recording into `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// The failures that are a resilience link's doing.
    private static let rejections: Set<String> = ["circuitOpen", "rateLimited", "loadShed", "deadlineExceeded"]

    /// Records `event` when a resilience link reported it.
    public func handle(_ event: CallEvent) {
        if case .callFailed(let errorType, _) = event.kind, Self.rejections.contains(errorType) {
            Counter(label: "resting.client.rejections", dimensions: [("error.type", errorType)], factory: factory)
                .increment()
        }
        switch event.kind.capabilityEvent(as: ResilienceEvent.self) {
        case .circuitBreakerChanged(let key, _, let state)?:
            Counter(
                label: "resting.client.circuit_breaker.transitions",
                dimensions: [("resting.resilience.key", key), ("resting.circuit_breaker.state", state.rawValue)],
                factory: factory
            ).increment()
        case .rateLimitWaited(let key, let waited)?:
            Timer(
                label: "resting.client.rate_limit.wait", dimensions: [("resting.resilience.key", key)], factory: factory
            )
            .recordNanoseconds(waited.wholeNanoseconds)
        case .rateLimitPaused(let key, _)?:
            Counter(
                label: "resting.client.rate_limit.pauses", dimensions: [("resting.resilience.key", key)],
                factory: factory
            ).increment()
        case .concurrencyLimitAcquired(let key, let limit, let waited)?:
            let dimensions = [("resting.resilience.key", key)]
            Recorder(label: "resting.client.concurrency_limit", dimensions: dimensions, factory: factory).record(limit)
            Timer(label: "resting.client.concurrency_limit.wait", dimensions: dimensions, factory: factory)
                .recordNanoseconds(waited.wholeNanoseconds)
        case .hedgeStarted?:
            Counter(label: "resting.client.hedges", factory: factory).increment()
        case nil:
            break
        }
    }
}
#endif
