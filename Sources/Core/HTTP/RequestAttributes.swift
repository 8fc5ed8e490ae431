/// A key of ``RequestAttributes``: a type whose name is the key and whose `defaultValue` is what a request
/// that never set it reads.
///
/// ```swift
/// enum TenantKey: RequestAttributeKey { static let defaultValue: String? = nil }
///
/// extension RequestAttributes {
///     var tenant: String? {
///         get { self[TenantKey.self] }
///         set { self[TenantKey.self] = newValue }
///     }
/// }
/// ```
public protocol RequestAttributeKey {
    /// The type of the attribute's value.
    associatedtype Value: Sendable
    /// The value when a request sets none.
    static var defaultValue: Value { get }
}

/// Typed, per-request options that travel with a request through every interceptor (OkHttp's tags, Harbor's
/// `needsAuth` / `retries` / `debugType`): set them on an ``Endpoint`` for every call of it, or on a
/// ``RestingRequest`` for one call (the request's values win); read them in any interceptor from
/// ``HTTPRequest/attributes``.
///
/// The library's own interceptors read theirs: ``AuthInterceptor`` skips requests whose
/// ``requiresAuthentication`` is `false`, ``RetryInterceptor`` honours ``maximumAttempts``,
/// ``LoggingInterceptor`` a per-request ``logLevel``, ``HTTPCacheInterceptor`` a ``cachePolicy``. Transports
/// ignore attributes: they are never sent.
///
/// ```swift
/// let token = Endpoint<Credentials, Token>(.post, "/oauth/token", encoding: .json)
///     .setting(\.requiresAuthentication, false)
/// var refresh = RestingRequest(endpoint: getFeed)
/// refresh.attributes.cachePolicy = .reloadIgnoringCache
/// ```
public struct RequestAttributes: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No attribute set: every key reads its default.
    public init() {}

    /// The value set for `key`, or its default.
    public subscript<Key: RequestAttributeKey>(_ key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)].flatMap { $0 as? Key.Value } ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Whether no attribute was set.
    public var isEmpty: Bool { values.isEmpty }

    /// These attributes with every value `overrides` sets replacing this one's.
    public func merging(_ overrides: RequestAttributes) -> RequestAttributes {
        guard !overrides.values.isEmpty else { return self }
        guard !values.isEmpty else { return overrides }
        var merged = self
        merged.values.merge(overrides.values) { _, override in override }
        return merged
    }
}

private enum RequiresAuthenticationKey: RequestAttributeKey { static let defaultValue = true }
private enum MaximumAttemptsKey: RequestAttributeKey { static let defaultValue: Int? = nil }

extension RequestAttributes {
    /// Whether an ``AuthInterceptor`` adds its credential (and refreshes it on a 401); `false` for the
    /// token endpoint itself or a public resource. Default `true`.
    public var requiresAuthentication: Bool {
        get { self[RequiresAuthenticationKey.self] }
        set { self[RequiresAuthenticationKey.self] = newValue }
    }

    /// The most sends ``RetryInterceptor`` makes for this request, in place of its policy's
    /// ``RetryInterceptor/Policy/maximumAttempts``; 1 never retries. Default `nil` (the policy's).
    public var maximumAttempts: Int? {
        get { self[MaximumAttemptsKey.self] }
        set { self[MaximumAttemptsKey.self] = newValue }
    }
}
