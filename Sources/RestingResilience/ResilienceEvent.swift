import RestingCore

/// What the resilience links report in a call's event stream, as a ``/RestingCore/CapabilityEvent``: read them
/// with `event.kind.capabilityEvent(as: ResilienceEvent.self)`.
///
/// ```swift
/// if case .circuitBreakerChanged(let key, _, .open) = event.kind.capabilityEvent(as: ResilienceEvent.self) {
///     alert("\(key) is failing")
/// }
/// ```
public enum ResilienceEvent: CapabilityEvent {
    /// A ``CircuitBreakerInterceptor``'s breaker for `key` went from `from` to `to` as this call was admitted or
    /// ended (the breaker is shared: the call that moved it reports it).
    case circuitBreakerChanged(key: String, from: CircuitBreakerState, to: CircuitBreakerState)
    /// A ``RateLimitInterceptor`` held the call `waited` for a token of `key`'s bucket.
    case rateLimitWaited(key: String, waited: Duration)
    /// A ``RateLimitInterceptor`` paused `key` for `duration` because this call's response asked it to
    /// (`Retry-After` on a 429 or 503, or `RateLimit` fields with nothing remaining).
    case rateLimitPaused(key: String, duration: Duration)
    /// A ``ConcurrencyLimitInterceptor`` admitted the call among `limit` calls in flight for `key`, after it
    /// waited `waited` (zero when there was room).
    case concurrencyLimitAcquired(key: String, limit: Int, waited: Duration)
    /// ``HedgingInterceptor`` sent hedge `hedge` (from 1) of the call: no answer had come `delay` after the send
    /// before it.
    case hedgeStarted(hedge: Int, delay: Duration)
}
