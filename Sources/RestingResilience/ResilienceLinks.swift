import RestingCore

/// The resilience links as one interceptor, in the one order they work in: deadline → circuit breaker → retry →
/// hedging → rate limit → concurrency limit. Name the ones you want; the order is this type's to keep.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: baseUrl, httpClient: transport,
///     interceptors: [
///         AuthInterceptor.bearer(token: token),
///         ResilienceLinks(
///             deadline: DeadlineInterceptor(callTimeout: .seconds(10)),
///             breaker: CircuitBreakerInterceptor(),
///             retry: RetryInterceptor(),
///             rateLimit: RateLimitInterceptor(limit: .init(requests: 20, per: .seconds(1)))),
///     ])
/// ```
///
/// Why that order: the deadline bounds everything after it, retries and waits included; an open breaker fails a call
/// before it spends a retry; each attempt is hedged; every attempt and hedge takes a token and a slot. Each link
/// placed on its own is checked against the same order when the client is made (``/RestingCore/PlacedInterceptor``):
/// a `RateLimitInterceptor` before a `RetryInterceptor` makes every call fail with
/// ``/RestingCore/RestingError/interceptorMisuse(interceptor:reason:)``.
public struct ResilienceLinks: PlacedInterceptor {
    /// The links named, in their order.
    public let links: [any RestingInterceptor]

    /// The links named, in the order above; leave out the ones you do not need.
    public init(
        deadline: DeadlineInterceptor? = nil, breaker: CircuitBreakerInterceptor? = nil,
        retry: RetryInterceptor? = nil, hedging: HedgingInterceptor? = nil, rateLimit: RateLimitInterceptor? = nil,
        concurrency: ConcurrencyLimitInterceptor? = nil
    ) {
        let ordered: [(any PlacedInterceptor)?] = [deadline, breaker, retry, hedging, rateLimit, concurrency]
        links = ordered.compactMap { $0 }
    }

    /// Runs `request` through the links, in order, then the rest of the chain.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await InterceptorChain.runComposed(links, request) { request in try await execution(request) }
    }

    /// The ranks of the resilience order its links span, from its outermost link to its innermost: a link of that
    /// order before it must rank no higher than the first, one after it no lower than the last. Without links it
    /// stands in no order.
    public var placement: InterceptorPlacement {
        let placements = links.compactMap { ($0 as? any PlacedInterceptor)?.placement }
        guard let first = placements.first?.ranks, let last = placements.last?.ranks else {
            return InterceptorPlacement(order: "", rank: 0, list: .either, name: "ResilienceLinks")
        }
        return InterceptorPlacement(
            order: "resilience", ranks: first.lowerBound...last.upperBound,
            // It stands where its strictest link must: in `interceptors` with a deadline or a concurrency limit.
            list: placements.contains { $0.list == .application } ? .application : .either, name: "ResilienceLinks")
    }
}
