/// Ordered, thread-safe key → value-closure storage behind both providers.
final class ProviderStore<Value: Sendable>: Sendable {
    typealias Provider = @Sendable () -> Value?
    private let entries: Locked<[(key: String, provider: Provider)]>
    private let sameKey: @Sendable (String, String) -> Bool

    init(_ providers: [String: Provider], sameKey: @escaping @Sendable (String, String) -> Bool) {
        // A dictionary has no stable order; sorting keeps what is sent identical from run to run.
        entries = Locked(providers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        self.sameKey = sameKey
    }

    func set(_ key: String, _ provider: @escaping Provider) {
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { sameKey($0.key, key) }) {
                entries[index] = (key, provider)
            } else {
                entries.append((key, provider))
            }
        }
    }

    func remove(_ key: String) { entries.withLock { $0.removeAll { sameKey($0.key, key) } } }

    /// Evaluates every closure, outside the lock, dropping `nil`s.
    func evaluate() -> [(key: String, value: Value)] {
        entries.withLock { $0 }.compactMap { entry in entry.provider().map { (entry.key, $0) } }
    }
}

/// Headers added to every request by ``RestingRequestConverter``: fixed values, or closures evaluated for
/// each request. A closure returning `nil` leaves the header out; a request's own header of the same name
/// wins. Safe to change from any thread while requests run.
///
/// ```swift
/// let headerProvider = RestingHeaderProvider(providers: ["device-id": { DeviceInfo.identifier }])
/// headerProvider.addHeader(key: "Accept-Language", value: "en")
/// ```
public final class RestingHeaderProvider: Sendable {
    private let store: ProviderStore<String>
    /// Lowercased names of the headers added as `sensitive`.
    private let sensitiveNames = Locked<Set<String>>([])

    /// A provider with these headers, each computed when a request is made; a `nil` value leaves the header out.
    public init(providers: [String: @Sendable () -> String?] = [:]) {
        store = ProviderStore(providers) { $0.caseInsensitiveEquals($1) }
    }

    /// Sets a fixed header value, replacing any provider of the same name (ignoring case). `sensitive` marks
    /// a credential whose name is not in ``SensitiveHeaders``: it is then redacted and kept within its origin.
    public func addHeader(key: String, value: String, sensitive: Bool = false) {
        addHeader(key: key, sensitive: sensitive) { value }
    }

    /// Sets a closure evaluated for every request; `nil` leaves the header out of that request.
    public func addHeader(key: String, sensitive: Bool = false, provider: @escaping @Sendable () -> String?) {
        sensitiveNames.withLock { names in
            if sensitive { names.insert(key.lowercased()) } else { names.remove(key.lowercased()) }
        }
        store.set(key, provider)
    }

    /// Stops adding the header `key`.
    public func removeHeader(key: String) {
        store.remove(key)
        sensitiveNames.withLock { _ = $0.remove(key.lowercased()) }
    }

    /// The headers for one request, evaluated now.
    public func headers() -> HTTPHeaders {
        let sensitive = sensitiveNames.withLock { $0 }
        return HTTPHeaders(
            store.evaluate().map { entry in
                HTTPHeaders.Field(
                    name: entry.key, value: entry.value, isSensitive: sensitive.contains(entry.key.lowercased()))
            })
    }
}

/// Path variables available to every request's template, such as the signed-in user's id: fixed values, or
/// closures evaluated for each request. `nil` leaves the variable unset (so a template that needs it fails
/// as missing); a request's own value wins. Safe to change from any thread.
///
/// ```swift
/// let pathVariableProvider = RestingPathVariableProvider(providers: ["userId": { Session.current?.userId }])
/// ```
public final class RestingPathVariableProvider: Sendable {
    private let store: ProviderStore<any PathVariableValue>

    /// A provider with these variables, each computed when a request is made; a `nil` value leaves it missing.
    public init(providers: [String: @Sendable () -> (any PathVariableValue)?] = [:]) {
        store = ProviderStore(providers) { $0 == $1 }
    }

    /// Adds the variable `key` with a fixed value.
    public func addVariable(key: String, value: any PathVariableValue) { store.set(key) { value } }

    /// Adds the variable `key`, computed when each request is made.
    public func addVariable(key: String, provider: @escaping @Sendable () -> (any PathVariableValue)?) {
        store.set(key, provider)
    }

    /// Stops providing the variable `key`.
    public func removeVariable(key: String) { store.remove(key) }

    /// The variables for one request, evaluated now.
    public func variables() -> [String: any PathVariableValue] {
        Dictionary(store.evaluate().map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
