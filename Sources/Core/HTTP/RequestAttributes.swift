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
/// The library's own interceptors read theirs: ``AuthInterceptor`` skips requests whose
/// ``requiresAuthentication`` is `false`, ``RetryInterceptor`` honours ``maximumAttempts``,
/// ``LoggingInterceptor`` a per-request ``logLevel``, `HTTPCacheInterceptor` a ``cachePolicy``. Transports
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

    /// No attribute set: every key reads its default.
    public init() {}

    /// The value set for `key`, or its default.
    ///
    /// Its getter is inlinable, so that a capability module's attribute (a link's per-call setting, read on every
    /// call) is read with its type known: unspecialised, the cast from the stored value cost a hedged call an
    /// allocation.
    public subscript<Key: RequestAttributeKey>(_ key: Key.Type) -> Key.Value {
        @inlinable
        get { values[ObjectIdentifier(key)].flatMap { $0 as? Key.Value } ?? Key.defaultValue }
        set {
            values[ObjectIdentifier(key)] = newValue
            if let persistent = key as? any PersistentRequestAttributeKey.Type {
                persistentKeys[ObjectIdentifier(key)] = persistent
            }
        }
    }

    /// Whether no attribute was set.
    public var isEmpty: Bool { values.isEmpty }

    /// These attributes with every value `overrides` sets replacing this one's.
    public func merging(_ overrides: RequestAttributes) -> RequestAttributes {
        guard !overrides.values.isEmpty else { return self }
        guard !values.isEmpty else { return overrides }
        var merged = self
        merged.values.merge(overrides.values) { _, override in override }
        merged.persistentKeys.merge(overrides.persistentKeys) { _, override in override }
        return merged
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
        return encoded
    }

    /// Attributes restored from ``persistentValues()``, with `keys` naming the keys to decode; `nil` when a value
    /// names no key among them or does not decode (such a request cannot be replayed with its whole meaning).
    package init?(restoring encoded: [String: Data], keys: [any PersistentRequestAttributeKey.Type]) {
        for (name, data) in encoded {
            guard let key = keys.first(where: { $0.name == name }), key.restore(data, into: &self) else { return nil }
        }
    }
}

/// A ``RequestAttributeKey`` whose value travels with a request that is kept for later: an `OfflineQueue`
/// stores it with the request and restores it on replay, so that a replay means what the call meant (a request
/// marked `requiresAuthentication = false` is not replayed with the app's token).
///
/// The library's own attributes are persistent. An app's attribute is, once its key conforms and is given to
/// the queue (`OfflineQueue(directory:attributeKeys:)`); an entry holding a value of a key the queue does not know
/// is never replayed without it: it is quarantined.
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

    fileprivate static func restore(_ data: Data, into attributes: inout RequestAttributes) -> Bool {
        // Wrapped in an array: a top-level `nil` or scalar is not a JSON document every decoder accepts.
        guard let value = try? JSONDecoder().decode([Value].self, from: data).first else { return false }
        attributes[Self.self] = value
        return true
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
