/// Where an ``HTTPCacheInterceptor`` keeps responses, by key (the request's URL).
///
/// Calls are synchronous and never fail the request: a store that cannot read an entry answers `nil` (and
/// drops it); one that cannot write simply does not keep it. Two ship: ``MemoryCacheStore`` and
/// ``DiskCacheStore``, both bounded by a capacity in bytes with least-recently-used eviction.
public protocol HTTPCacheStore: Sendable {
    /// The response stored for `key`, if any, marking it as used.
    func response(for key: String) -> CachedResponse?
    /// Keeps `response` for `key`, replacing any, evicting the least recently used past the capacity.
    func store(_ response: CachedResponse, for key: String)
    /// Forgets the response for `key`.
    func removeResponse(for key: String)
    /// Forgets every response.
    func removeAll()
}

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

/// A store in memory, for the life of the process: fast, and gone at exit.
///
/// ```swift
/// let cache = HTTPCacheInterceptor(store: MemoryCacheStore(capacity: 20 << 20))   // 20 MiB
/// ```
public final class MemoryCacheStore: HTTPCacheStore {
    private struct State {
        var index: LRUIndex
        var responses: [String: CachedResponse] = [:]
    }

    private let state: Locked<State>

    /// - Parameter capacity: Bytes of responses kept (``CachedResponse/cost``); default 10 MiB.
    public init(capacity: Int = 10 << 20) { state = Locked(State(index: LRUIndex(capacity: capacity))) }

    public func response(for key: String) -> CachedResponse? {
        state.withLock { state in
            state.index.touch(key)
            return state.responses[key]
        }
    }

    public func store(_ response: CachedResponse, for key: String) {
        state.withLock { state in
            state.responses[key] = response
            for evicted in state.index.insert(key, cost: response.cost) { state.responses[evicted] = nil }
        }
    }

    public func removeResponse(for key: String) {
        state.withLock { state in
            state.index.remove(key)
            state.responses[key] = nil
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.index.removeAll()
            state.responses = [:]
        }
    }

    /// Bytes held now.
    public var size: Int { state.withLock { $0.index.total } }
}
