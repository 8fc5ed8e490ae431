import RestingCore

/// How a resilience link failed a call at once, without sending it: a breaker that is open, a rate limit with no
/// token within its wait, a concurrency limit with no room. (A deadline that passed is RestingCore's
/// `RestingError.deadlineExceeded`: every exchange honours a deadline, whoever set it.)
///
/// ```swift
/// do {
///     let user = try await client.send(getUser).body
/// } catch ResilienceError.circuitOpen(_, let retryAfter) {
///     showOffline(retryIn: retryAfter)
/// }
/// ```
public enum ResilienceError: CallFailure, Equatable {
    /// A ``CircuitBreakerInterceptor``'s breaker for `key` (an origin, or the key the app chose) is open: the call
    /// was failed at once, without reaching the transport. The breaker lets a probe through after `retryAfter`.
    case circuitOpen(key: String, retryAfter: Duration)
    /// A ``RateLimitInterceptor`` would have had the call wait past its bound for `key` (its longest wait, or its
    /// most waiting calls): the call was failed at once. A token is due after `retryAfter`.
    case rateLimited(key: String, retryAfter: Duration)
    /// A ``ConcurrencyLimitInterceptor`` had `limit` calls in flight for `key` and no room in its queue: the call
    /// was shed.
    case loadShed(key: String, limit: Int)

    /// The case's name: `circuitOpen`, `rateLimited` or `loadShed`.
    public var errorType: String {
        switch self {
        case .circuitOpen: "circuitOpen"
        case .rateLimited: "rateLimited"
        case .loadShed: "loadShed"
        }
    }

    /// What happened, with the key and the wait.
    public var description: String {
        switch self {
        case .circuitOpen(let key, let retryAfter):
            "the circuit breaker for '\(key)' is open: the next probe goes after \(retryAfter)"
        case .rateLimited(let key, let retryAfter):
            "the rate limit for '\(key)' has no token within its wait: the next is due in \(retryAfter)"
        case .loadShed(let key, let limit):
            "\(limit) calls to '\(key)' are in flight and its queue is full: the call was shed"
        }
    }
}
