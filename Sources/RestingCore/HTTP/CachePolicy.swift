/// How one request uses the `HTTPCacheInterceptor` (Malibu's `cachePolicy`), set through
/// ``RequestAttributes/cachePolicy``.
public enum CachePolicy: String, Sendable, Hashable, Codable {
    /// RFC 9111: fresh responses from the cache, stale ones revalidated, the rest fetched. The default.
    case useProtocol
    /// Always fetch, ignoring what is stored (pull-to-refresh); the answer is stored as usual.
    case reloadIgnoringCache
    /// Whatever is stored, however stale, without asking the server; fetch only when nothing is stored
    /// (offline-first screens).
    case returnCacheElseLoad
    /// Only what is stored, however stale; never the network. With nothing stored the answer is a `504` made
    /// by the cache (``CacheStatus/unavailable``), as for `Cache-Control: only-if-cached`.
    case returnCacheDontLoad
}

package enum CachePolicyKey: PersistentRequestAttributeKey {
    package static let defaultValue = CachePolicy.useProtocol
    package static let name = "resting.cachePolicy"
}

extension RequestAttributes {
    /// How `HTTPCacheInterceptor` treats this request; default ``CachePolicy/useProtocol``.
    public var cachePolicy: CachePolicy {
        get { self[CachePolicyKey.self] }
        set { self[CachePolicyKey.self] = newValue }
    }
}
