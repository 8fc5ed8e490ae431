/// Where a circuit breaker stands: letting calls through, failing them fast, or letting a few probes through.
public enum CircuitBreakerState: String, Sendable, Equatable {
    /// Calls go through; their outcomes are counted.
    case closed
    /// Calls fail at once with ``ResilienceError/circuitOpen(key:retryAfter:)`` until the open duration has passed.
    case open
    /// A bounded number of probes go through; their outcomes close the breaker or open it again.
    case halfOpen
}
