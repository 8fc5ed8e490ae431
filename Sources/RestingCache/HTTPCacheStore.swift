import RestingCore

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
    /// Whether calls wait on files (or anything slower than memory). ``HTTPCacheInterceptor`` then makes them on
    /// the global concurrent executor, never on the executor its chain runs on — a transport's thread, which
    /// may be driving every other transfer. `false` by default; ``DiskCacheStore`` says `true`.
    var performsBlockingIO: Bool { get }
    /// Whether responses to requests that carried credentials may be kept here (under a key that holds a digest
    /// of them, so each identity has its own). A store that outlives the process should say `false` unless the
    /// app opted in: a response for one user would otherwise survive sign-out on disk. `false` by default;
    /// ``MemoryCacheStore`` says `true`, ``DiskCacheStore`` what it was told.
    var storesCredentialedResponses: Bool { get }
}

extension HTTPCacheStore {
    /// `false`: a store is taken to answer from memory unless it says otherwise.
    public var performsBlockingIO: Bool { false }
    /// `false`: a store keeps no response to a credentialed request unless it says it may.
    public var storesCredentialedResponses: Bool { false }
}
