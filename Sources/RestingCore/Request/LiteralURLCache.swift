#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The URLs of endpoints whose path has no variables, by base URL and path: parsing the address with
/// `URL(string:)` is the largest part of converting a request, and such an endpoint's address only changes
/// with the base URL.
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

    private let urls = Locked<[Key: URL]>([:])

    /// How many URLs are kept right now.
    var count: Int { urls.withLock { $0.count } }

    /// The URL for `path` on `baseUrl`: from the cache, or made by `make` (and kept when it succeeds).
    func url(
        baseUrl: String, path: String, make: () throws(RestingError) -> URL
    ) throws(RestingError) -> URL {
        let key = Key(baseUrl: baseUrl, path: path)
        if let url = urls.withLock({ $0[key] }) { return url }
        let url = try make()
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
        return url
    }
}
