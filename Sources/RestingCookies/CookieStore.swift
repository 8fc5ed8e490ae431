import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 6265's storage model (§5.3) and retrieval (§5.4) as a value: which `Set-Cookie` fields a response may
/// store, which cookies a request carries. Jars wrap it with a lock (and a file); it is tested without either.
package struct CookieStore: Sendable {
    package private(set) var cookies: [Cookie] = []
    let publicSuffixes: PublicSuffixList

    /// Cookies per domain and in all, past which the least recently used go (by default RFC 6265 §6.1's
    /// minimums: 50 and 3000).
    let maximumPerDomain: Int
    let maximumCount: Int
    /// The longest a cookie may live, whatever it asks (RFC 6265bis: 400 days; ``ServerDuration/Use/cookieLifetime``).
    package static let maximumLifetime: TimeInterval = ServerDuration.Use.cookieLifetime.ceiling.seconds

    package init(
        publicSuffixes: PublicSuffixList, cookies: [Cookie] = [], maximumPerDomain: Int = 50, maximumCount: Int = 3000
    ) {
        self.publicSuffixes = publicSuffixes
        self.maximumPerDomain = maximumPerDomain
        self.maximumCount = maximumCount
        self.cookies = cookies
    }

    /// Stores (or deletes, for an expiry in the past) what `field` sets for a response from `url`; returns whether
    /// anything changed.
    @discardableResult
    package mutating func receive(_ field: String, from url: URL, now: Date) -> Bool {
        guard let parsed = SetCookie(field), let cookie = cookie(from: parsed, url: url, now: now) else { return false }
        let existing = cookies.firstIndex { $0.replaces(cookie) }
        var stored = cookie
        if let existing {
            stored.created = cookies[existing].created
            cookies.remove(at: existing)
        }
        guard !cookie.isExpired(at: now) else { return existing != nil }
        cookies.append(stored)
        enforceLimits(now: now, domain: stored.domain)
        return true
    }

    /// The cookies a request to `url` carries, longest path first, then oldest first (§5.4), marked as used.
    package mutating func cookies(for url: URL, now: Date) -> [Cookie] {
        guard let host = Self.host(of: url) else { return [] }
        let path = Self.requestPath(of: url)
        let isSecure = Self.isSecure(url)
        var indices: [Int] = []
        for (index, cookie) in cookies.enumerated()
        where !cookie.isExpired(at: now)
            && (cookie.isHostOnly ? cookie.domain == host : Self.domain(host, matches: cookie.domain))
            && Self.path(path, matches: cookie.path) && (isSecure || !cookie.isSecure)
        {
            indices.append(index)
        }
        for index in indices { cookies[index].lastAccessed = now }
        return indices.map { cookies[$0] }.sorted {
            $0.path.utf8.count != $1.path.utf8.count ? $0.path.utf8.count > $1.path.utf8.count : $0.created < $1.created
        }
    }

    /// Drops expired cookies; returns whether any was.
    @discardableResult
    mutating func removeExpired(now: Date) -> Bool {
        let count = cookies.count
        cookies.removeAll { $0.isExpired(at: now) }
        return cookies.count != count
    }

    /// Drops every cookie.
    mutating func removeAll() { cookies.removeAll() }

    /// The cookie `parsed` makes for a response from `url`, or `nil` when the rules ignore it.
    private func cookie(from parsed: SetCookie, url: URL, now: Date) -> Cookie? {
        guard let host = Self.host(of: url) else { return nil }
        let isSecureOrigin = Self.isSecure(url)
        // RFC 6265bis: only a secure origin sets a Secure cookie, or one of the prefixes that promise it.
        if parsed.isSecure && !isSecureOrigin { return nil }
        if parsed.name.hasPrefix("__Secure-") && !(parsed.isSecure && isSecureOrigin) { return nil }
        if parsed.name.hasPrefix("__Host-")
            && !(parsed.isSecure && isSecureOrigin && parsed.domain == nil && parsed.path == "/")
        {
            return nil
        }

        var domain = host
        var isHostOnly = true
        if let attribute = parsed.domain, attribute != host {
            // An IP address matches itself only; a public suffix cannot scope a cookie to all its registrants.
            guard !Self.isIPAddress(host), !publicSuffixes.isPublicSuffix(attribute),
                Self.domain(host, matches: attribute)
            else {
                return nil
            }
            domain = attribute
            isHostOnly = false
        }

        let expires: Date?
        if let maxAge = parsed.maxAge {
            expires =
                maxAge <= 0
                ? .distantPast : now + ServerDuration.clamped(seconds: Double(maxAge), for: .cookieLifetime).seconds
        } else if let date = parsed.expires {
            // A date past is now: the cookie is expired, and goes.
            expires = now + ServerDuration.until(date, from: now, for: .cookieLifetime).seconds
        } else {
            expires = nil
        }

        let cookie = Cookie(
            name: parsed.name, value: parsed.value, domain: domain, isHostOnly: isHostOnly,
            path: parsed.path ?? Self.defaultPath(of: url), expires: expires, isSecure: parsed.isSecure,
            isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, created: now, lastAccessed: now)
        // RFC 6265bis: an insecure origin cannot shadow a Secure cookie of the same name that would reach it.
        if !isSecureOrigin,
            cookies.contains(where: {
                $0.isSecure && $0.name == cookie.name
                    && (Self.domain($0.domain, matches: domain) || Self.domain(domain, matches: $0.domain))
                    && Self.path(cookie.path, matches: $0.path)
            })
        {
            return nil
        }
        return cookie
    }

    private mutating func enforceLimits(now: Date, domain: String) {
        removeExpired(now: now)
        let inDomain = cookies.indices.filter { cookies[$0].domain == domain }
        if inDomain.count > maximumPerDomain {
            let evicted = Set(
                inDomain.sorted { cookies[$0].lastAccessed < cookies[$1].lastAccessed }
                    .prefix(inDomain.count - maximumPerDomain))
            cookies = cookies.indices.filter { !evicted.contains($0) }.map { cookies[$0] }
        }
        if cookies.count > maximumCount {
            let keep = cookies.indices.sorted { cookies[$0].lastAccessed > cookies[$1].lastAccessed }.prefix(
                maximumCount)
            cookies = keep.sorted().map { cookies[$0] }
        }
    }

    // MARK: - RFC 6265 §5.1

    package static func host(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    static func isSecure(_ url: URL) -> Bool { url.scheme?.lowercased() == "https" }

    static func isIPAddress(_ host: String) -> Bool {
        guard !host.contains(":") else { return true }  // IPv6
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4 && labels.allSatisfy { UInt8($0) != nil }
    }

    /// §5.1.3: identical, or `host` ends with `.domain` and is a host name, not an IP address.
    package static func domain(_ host: String, matches domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    /// §5.1.4: identical, or `cookiePath` is a prefix of `requestPath` ending at a `/` boundary.
    package static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
            || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The URL's path as sent (percent-encoded, trailing slash kept); `/` when it has none.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the request path up to, not including, its last `/`; `/` when that leaves nothing.
    package static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }
}
