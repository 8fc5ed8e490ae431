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
    public func headers() -> HTTPHeaderFields {
        let sensitive = sensitiveNames.withLock { $0 }
        return HTTPHeaderFields(
            store.evaluate().map { entry in
                HTTPHeaderFields.Field(
                    name: entry.key, value: entry.value, isSensitive: sensitive.contains(entry.key.lowercased()))
            })
    }
}
