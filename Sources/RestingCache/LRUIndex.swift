import RestingCore

/// Which keys to evict so that `total` fits `capacity`, least recently used first: the bookkeeping shared by
/// the memory and disk stores.
struct LRUIndex: Sendable {
    private(set) var costs: [String: Int] = [:]
    private var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    private(set) var total = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func contains(_ key: String) -> Bool { costs[key] != nil }

    mutating func touch(_ key: String) {
        guard costs[key] != nil else { return }
        clock += 1
        lastUse[key] = clock
    }

    /// Records `key` at `cost` as just used; returns the keys to evict (never `key` unless it alone exceeds the
    /// capacity, in which case it is the only one returned).
    mutating func insert(_ key: String, cost: Int) -> [String] {
        remove(key)
        guard cost <= capacity else { return [key] }
        clock += 1
        costs[key] = cost
        lastUse[key] = clock
        total += cost
        var evicted: [String] = []
        while total > capacity, let oldest = lastUse.min(by: { $0.value < $1.value })?.key {
            remove(oldest)
            evicted.append(oldest)
        }
        return evicted
    }

    mutating func remove(_ key: String) {
        guard let cost = costs.removeValue(forKey: key) else { return }
        lastUse[key] = nil
        total -= cost
    }

    mutating func removeAll() {
        costs = [:]
        lastUse = [:]
        total = 0
    }
}
