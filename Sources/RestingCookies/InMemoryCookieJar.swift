import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
