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
