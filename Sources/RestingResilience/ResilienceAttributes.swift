import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum ResilienceKeyKey: PersistentRequestAttributeKey {
    static let defaultValue: String? = nil
    static let name = "resting.resilienceKey"
}

enum CallTimeoutKey: PersistentRequestAttributeKey {
    static let defaultValue: Duration? = nil
    static let name = "resting.callTimeout"
}

enum AttemptTimeoutKey: PersistentRequestAttributeKey {
    static let defaultValue: Duration? = nil
    static let name = "resting.attemptTimeout"
}

enum MaximumHedgesKey: PersistentRequestAttributeKey {
    static let defaultValue: Int? = nil
    static let name = "resting.maximumHedges"
}

enum HedgeKey: RequestAttributeKey {
    static let defaultValue = 0
}

extension RequestAttributes {
    /// Under which key the resilience interceptors (``CircuitBreakerInterceptor``, ``RateLimitInterceptor``,
    /// ``ConcurrencyLimitInterceptor``) keep this request's state, in place of its origin: one breaker for an
    /// expensive endpoint of an API, one bucket per tenant. Default `nil` (the origin, `https://api.example.com:443`).
    ///
    /// ```swift
    /// let search = Endpoint<Nothing, [Hit]>(.get, "/search").setting(\.resilienceKey, "search")
    /// ```
    public var resilienceKey: String? {
        get { self[ResilienceKeyKey.self] }
        set { self[ResilienceKeyKey.self] = newValue }
    }

    /// The whole call's time limit, in place of its ``DeadlineInterceptor``'s. Default `nil` (the interceptor's).
    public var callTimeout: Duration? {
        get { self[CallTimeoutKey.self] }
        set { self[CallTimeoutKey.self] = newValue }
    }

    /// Each attempt's time limit, in place of its ``DeadlineInterceptor``'s. Default `nil` (the interceptor's).
    public var attemptTimeout: Duration? {
        get { self[AttemptTimeoutKey.self] }
        set { self[AttemptTimeoutKey.self] = newValue }
    }

    /// The most hedges ``HedgingInterceptor`` sends for this request, in place of its own; 0 never hedges it.
    /// Default `nil` (the interceptor's).
    public var maximumHedges: Int? {
        get { self[MaximumHedgesKey.self] }
        set { self[MaximumHedgesKey.self] = newValue }
    }

    /// Which send of its attempt this is: 0 for the first, then 1 and on for each hedge of ``HedgingInterceptor``,
    /// which sets it. What an interceptor after it (a logger, a span) reports beside ``/RestingCore/RequestAttributes/attempt``.
    public var hedge: Int {
        get { self[HedgeKey.self] }
        set { self[HedgeKey.self] = newValue }
    }
}

extension HTTPRequest {
    /// The key the resilience interceptors keep this request's state under: its ``RestingCore/RequestAttributes/resilienceKey``,
    /// or its URL's origin.
    var resilienceKey: String {
        if let key = attributes.resilienceKey { return key }
        return originKey ?? url.host ?? ""
    }
}
