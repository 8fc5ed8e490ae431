#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// The library's own interceptors read theirs: `AuthInterceptor` skips requests whose
/// ``requiresAuthentication`` is `false`, ``RetryInterceptor`` honours ``maximumAttempts``,
/// `LoggingInterceptor` a per-request `logLevel`, `HTTPCacheInterceptor` a ``cachePolicy``. Transports
/// ignore attributes: they are never sent.
///
/// ```swift
/// let token = Endpoint<Credentials, Token>(.post, "/oauth/token", encoding: .json)
///     .setting(\.requiresAuthentication, false)
/// var refresh = RestingRequest(endpoint: getFeed)
/// refresh.attributes.cachePolicy = .reloadIgnoringCache
/// ```
public struct RequestAttributes: Sendable {
    @usableFromInline
    var values: [ObjectIdentifier: any Sendable] = [:]
    /// The keys among `values`' that an offline queue keeps (``PersistentRequestAttributeKey``).
    private var persistentKeys: [ObjectIdentifier: any PersistentRequestAttributeKey.Type] = [:]
    /// Values restored from storage, by key name, that nothing has set since: each decodes when its key is read, so
    /// that any module's persistent key is restored without a list of keys to know.
    @usableFromInline
    var restored: [String: Data] = [:]

    /// No attribute set: every key reads its default.
    public init() {}

    /// The value set for `key`, or its default.
    ///
    /// Its getter is inlinable, so that a capability module's attribute (a link's per-call setting, read on every
    /// call) is read with its type known: unspecialised, the cast from the stored value cost a hedged call an
    /// allocation.
    public subscript<Key: RequestAttributeKey>(_ key: Key.Type) -> Key.Value {
        @inlinable
        get {
            values[ObjectIdentifier(key)].flatMap { $0 as? Key.Value }
                ?? (restored.isEmpty ? Key.defaultValue : restoredValue(key))
        }
        set {
            values[ObjectIdentifier(key)] = newValue
            if let persistent = key as? any PersistentRequestAttributeKey.Type {
                persistentKeys[ObjectIdentifier(key)] = persistent
                if !restored.isEmpty { restored[persistent.name] = nil }
            }
        }
    }

    /// Whether no attribute was set.
    public var isEmpty: Bool { values.isEmpty && restored.isEmpty }

    /// These attributes with every value `overrides` sets replacing this one's.
    public func merging(_ overrides: RequestAttributes) -> RequestAttributes {
        guard !overrides.isEmpty else { return self }
        guard !isEmpty else { return overrides }
        var merged = self
        merged.values.merge(overrides.values) { _, override in override }
        merged.persistentKeys.merge(overrides.persistentKeys) { _, override in override }
        guard !restored.isEmpty || !overrides.restored.isEmpty else { return merged }
        // A value restored on one side and set on the other: the overriding side's wins, as for set values.
        for (id, key) in persistentKeys where overrides.restored[key.name] != nil && overrides.values[id] == nil {
            merged.values[id] = nil
            merged.persistentKeys[id] = nil
        }
        merged.restored.merge(overrides.restored) { _, override in override }
        for key in overrides.persistentKeys.values { merged.restored[key.name] = nil }
        return merged
    }

    /// The value restored for `key`, decoded, or its default where none was or it does not decode.
    @usableFromInline
    func restoredValue<Key: RequestAttributeKey>(_ key: Key.Type) -> Key.Value {
        guard let persistent = key as? any PersistentRequestAttributeKey.Type, let data = restored[persistent.name],
            let value = persistent.decode(data) as? Key.Value
        else { return Key.defaultValue }
        return value
    }

    /// The values of the ``PersistentRequestAttributeKey``s set, encoded, by ``PersistentRequestAttributeKey/name``.
    package func persistentValues() throws(RestingError) -> [String: Data] {
        var encoded: [String: Data] = [:]
        for (id, key) in persistentKeys {
            guard let value = values[id], let data = key.encode(value) else {
                throw .encodingFailed(reason: "the request attribute '\(key.name)' could not be encoded")
            }
            encoded[key.name] = data
        }
        return encoded.merging(restored) { set, _ in set }
    }

    /// Attributes restored from ``persistentValues()``: each value decodes when its key is read.
    package init(restoring encoded: [String: Data]) { restored = encoded }

    /// Whether every value restored for one of `keys` decodes: what a replay checks first for the keys whose meaning
    /// it must not lose — a value of them that no longer decodes would read as the key's default (a request marked as
    /// needing no credential would go with one).
    package func restoredValuesDecode(for keys: [any PersistentRequestAttributeKey.Type]) -> Bool {
        keys.allSatisfy { key in restored[key.name].map { key.decode($0) != nil } ?? true }
    }

    /// The core's persistent keys: whether a call carries credentials, may be retried, how often, under which
    /// operation, and how it uses a cache.
    package static let corePersistentKeys: [any PersistentRequestAttributeKey.Type] = [
        RequiresAuthenticationKey.self, IdempotentKey.self, MaximumAttemptsKey.self, OperationIDKey.self,
        CachePolicyKey.self,
    ]
}

/// A ``RequestAttributeKey`` whose value travels with a request that is kept for later: an `OfflineQueue`
/// stores it with the request and restores it on replay, so that a replay means what the call meant (a request
/// marked `requiresAuthentication = false` is not replayed with the app's token).
///
/// The library's own attributes are persistent, and so is an app's once its key conforms: a replayed request holds
/// every value it was kept with, and each decodes when its key is read (a value that no longer decodes, after its
/// type changed, reads as the key's default). An entry whose value of one of the core's keys does not decode — whether
/// it needs credentials, whether it may be retried — is quarantined instead: its meaning cannot be restored.
///
/// ```swift
/// enum TenantKey: PersistentRequestAttributeKey {
///     static let defaultValue: String? = nil
///     static let name = "com.example.tenant"
/// }
/// ```
public protocol PersistentRequestAttributeKey: RequestAttributeKey, Sendable where Value: Codable {
    /// The name the value is stored under: unique in the app and stable across its releases.
    static var name: String { get }
}

extension PersistentRequestAttributeKey {
    fileprivate static func encode(_ value: any Sendable) -> Data? {
        (value as? Value).flatMap { try? JSONEncoder().encode([$0]) }
    }

    fileprivate static func decode(_ data: Data) -> (any Sendable)? {
        // Wrapped in an array: a top-level `nil` or scalar is not a JSON document every decoder accepts.
        try? JSONDecoder().decode([Value].self, from: data).first
    }
}

package enum RequiresAuthenticationKey: PersistentRequestAttributeKey {
    package static let defaultValue = true
    package static let name = "resting.requiresAuthentication"
}

enum OperationIDKey: PersistentRequestAttributeKey {
    static let defaultValue: String? = nil
    static let name = "resting.operationID"
}

enum AttemptKey: RequestAttributeKey {
    static let defaultValue = 1
}

enum IdempotentKey: PersistentRequestAttributeKey {
    static let defaultValue: Bool? = nil
    static let name = "resting.isIdempotent"
}

package enum MaximumAttemptsKey: PersistentRequestAttributeKey {
    package static let defaultValue: Int? = nil
    package static let name = "resting.maximumAttempts"
}

extension RequestAttributes {
    /// Whether an `AuthInterceptor` adds its credential (and refreshes it on a 401); `false` for the
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

    /// The operation of the API this request performs, as the API's description names it (an OpenAPI
    /// `operationId`, which RestingKit's OpenAPI transport sets): for an interceptor that treats one operation
    /// differently — no credential for the token operation, a larger retry budget for an idempotent upload.
    /// Default `nil`.
    public var operationID: String? {
        get { self[OperationIDKey.self] }
        set { self[OperationIDKey.self] = newValue }
    }

    /// Which send of the call this is: 1, then 2 and on for each retry of ``RetryInterceptor``, which sets it. What
    /// an interceptor after it (a logger, a span) reports as the attempt.
    public var attempt: Int {
        get { self[AttemptKey.self] }
        set { self[AttemptKey.self] = newValue }
    }

    /// Whether sending this request twice has the effect of sending it once, in place of what its method says
    /// (`GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE` are): a `POST` with an idempotency key is. ``RetryInterceptor`` and
    /// `HedgingInterceptor` send only idempotent requests again. Default `nil` (the method's).
    public var isIdempotent: Bool? {
        get { self[IdempotentKey.self] }
        set { self[IdempotentKey.self] = newValue }
    }
}

extension HTTPRequest {
    /// Whether this request may be sent twice: its ``RequestAttributes/isIdempotent``, or its method's.
    package var isIdempotent: Bool { attributes.isIdempotent ?? method.isIdempotent }
}
