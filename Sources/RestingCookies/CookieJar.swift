import RestingCore

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
