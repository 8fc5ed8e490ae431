import RestingCore

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

    /// `true`: entries live no longer than the process, each identity under its own key.
    public var storesCredentialedResponses: Bool { true }
}
