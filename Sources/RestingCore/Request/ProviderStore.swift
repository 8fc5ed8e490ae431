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
