import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One cookie as a ``CookieJar`` keeps it (RFC 6265 §5.3): where it may be sent, until when, and over what.
public struct Cookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The cookie's name, as the server set it.
    public var name: String
    /// The cookie's value; ``description`` never shows it.
    public var value: String
    /// The host (for a host-only cookie) or the domain whose hosts receive it, lowercased, without a leading dot.
    public var domain: String
    /// Sent to the host that set it only, not to its subdomains (the response had no `Domain` attribute).
    public var isHostOnly: Bool
    /// Sent for request paths under this one.
    public var path: String
    /// When it stops being sent; `nil` for a session cookie, which lives as long as the jar's process.
    public var expires: Date?
    /// Sent over HTTPS only.
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly` (kept from scripts; every HTTP request still carries it).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute as the server sent it (a browser's concern; kept for inspection).
    public var sameSite: String?
    /// When the cookie was first stored; older cookies come first in a `Cookie` header with equal paths.
    public var created: Date
    /// When a request last carried it; the least recently used cookies are evicted first.
    public var lastAccessed: Date

    /// A cookie as a `CookieStore` keeps it (parse a server's `Set-Cookie` with `SetCookie` instead).
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        expires: Date? = nil, isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil,
        created: Date = Date(), lastAccessed: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
        self.lastAccessed = lastAccessed ?? created
    }

    /// Whether it outlives the process (it has an expiry).
    public var isPersistent: Bool { expires != nil }

    func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// Same name, domain, host-only flag and path: a new one replaces the old (RFC 6265 §5.3 step 11).
    func replaces(_ other: Cookie) -> Bool {
        name == other.name && domain == other.domain && isHostOnly == other.isHostOnly && path == other.path
    }

    /// `name=<redacted>; domain; path; …`: the value is a credential and is never printed.
    public var description: String {
        var parts = [
            "\(name)=\(RedactionPolicy.placeholder)", "\(isHostOnly ? "host" : "domain")=\(domain)", "path=\(path)",
        ]
        if let expires { parts.append("expires=\(HTTPDate.format(expires))") }
        if isSecure { parts.append("secure") }
        return parts.joined(separator: "; ")
    }
}
