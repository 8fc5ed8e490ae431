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
