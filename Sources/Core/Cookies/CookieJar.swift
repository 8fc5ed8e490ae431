#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a ``CookieInterceptor`` keeps cookies between exchanges (RFC 6265).
///
/// Two ship: ``InMemoryCookieJar`` for the life of the process, ``PersistentCookieJar`` across launches.
/// Either applies the same rules (domain and path matching, host-only cookies, `Secure` over HTTPS only,
/// expiry, public suffixes, size limits), so a session works the same on every transport.
public protocol CookieJar: Sendable {
    /// The cookies a request to `url` carries, in the order they are sent.
    func cookies(for url: URL) async -> [Cookie]
    /// Stores what the `Set-Cookie` fields of a response from `url` set (or delete). Returns once they are kept —
    /// for a persistent jar, once they are on disk.
    func receive(setCookieFields fields: [String], from url: URL) async throws
}

/// A jar that keeps cookies in memory, for as long as it lives: one per signed-in session.
///
/// ```swift
/// let jar = InMemoryCookieJar()
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, networkInterceptors: [CookieInterceptor(jar: jar)])
/// ```
public final class InMemoryCookieJar: CookieJar {
    private let store: Locked<CookieStore>
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - publicSuffixes: The domains no cookie may be set for as a whole.
    ///   - now: The clock expiry is measured on (a test's, to move time).
    public init(publicSuffixes: PublicSuffixList = .builtIn, now: @escaping @Sendable () -> Date = { Date() }) {
        store = Locked(CookieStore(publicSuffixes: publicSuffixes))
        self.now = now
    }

    public func cookies(for url: URL) async -> [Cookie] {
        let now = now()
        return store.withLock { $0.cookies(for: url, now: now) }
    }

    public func receive(setCookieFields fields: [String], from url: URL) async throws {
        let now = now()
        store.withLock { store in for field in fields { store.receive(field, from: url, now: now) } }
    }

    /// Every cookie held that has not expired.
    public var allCookies: [Cookie] {
        let now = now()
        return store.withLock { $0.cookies.filter { !$0.isExpired(at: now) } }
    }

    /// Forgets every cookie (signing out).
    public func removeAll() { store.withLock { $0.removeAll() } }
}
