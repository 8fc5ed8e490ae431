#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The URLs of endpoints whose path has no variables, by base URL and path, each with its origin's key
/// (``Origin/key(of:)``): parsing the address with `URL(string:)` is the largest part of converting a request, and
/// such an endpoint's address only changes with the base URL.
///
/// Only variable-free paths without query items, written as literals, are kept, so no path variable, interpolated
/// value or query value — an identifier, a token — outlives its call here. The cache is bounded: when it holds ``capacity`` entries it starts again
/// empty, which an app with fewer endpoints than that never sees.
final class LiteralURLCache: Sendable {
    private struct Key: Hashable {
        let baseUrl: String
        let path: String
    }

    /// Most entries kept at once.
    static let capacity = 256

    /// A URL kept, and its origin's key.
    struct Entry {
        let url: URL
        let originKey: String?
    }

    private let urls = Locked<[Key: Entry]>([:])
    /// The origin key of every URL on a base URL that an endpoint's relative path makes, by base URL.
    private let baseOriginKeys = Locked<[String: String?]>([:])

    /// How many URLs are kept right now.
    var count: Int { urls.withLock { $0.count } }
    /// How many base URLs' origin keys are kept right now.
    var baseCount: Int { baseOriginKeys.withLock { $0.count } }

    /// The URL for `path` on `baseUrl` and its origin's key: from the cache, or made by `make` (and kept when it
    /// succeeds).
    func url(
        baseUrl: String, path: String, make: () throws(RestingError) -> URL
    ) throws(RestingError) -> Entry {
        let key = Key(baseUrl: baseUrl, path: path)
        if let entry = urls.withLock({ $0[key] }) { return entry }
        let url = try make()
        let entry = Entry(url: url, originKey: Origin.key(of: url))
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = entry
        }
        return entry
    }

    /// The origin key of `url`, made by a relative path on `baseUrl`: every such URL's, kept by base URL.
    func originKey(of url: URL, onBase baseUrl: String) -> String? {
        if let key = baseOriginKeys.withLock({ $0[baseUrl] }) { return key }
        let key = Origin.key(of: url)
        baseOriginKeys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[baseUrl] = key
        }
        return key
    }
}
