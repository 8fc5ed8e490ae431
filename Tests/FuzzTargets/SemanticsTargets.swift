import RestingCache
import RestingCookies
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// A `Set-Cookie` field from a server, stored for `https://www.example.com/docs/page` and read back: the jar
    /// keeps only cookies whose name and value have no control character and fit the size limit, scoped to the
    /// responding host or a parent that is no public suffix, with a path and an expiry within the cap.
    static let setCookie = FuzzTarget(name: "set-cookie") { input, violation in
        let origin = URL(string: "https://www.example.com/docs/page")!
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var store = CookieStore(publicSuffixes: .builtIn)
        for field in input.text.split(separator: "\n", omittingEmptySubsequences: false) {
            store.receive(String(field), from: origin, now: now)
        }
        for cookie in store.cookies {
            if cookie.name.isEmpty
                || (cookie.name + cookie.value).utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F })
            {
                violation("kept \(cookie.name.debugDescription)=\(cookie.value.debugDescription)")
            }
            if !CookieStore.domain("www.example.com", matches: cookie.domain) || cookie.domain == "com" {
                violation("kept a cookie for \(cookie.domain.debugDescription) from www.example.com")
            }
            if !cookie.path.hasPrefix("/") { violation("kept path \(cookie.path.debugDescription)") }
            if let expires = cookie.expires, expires > now.addingTimeInterval(CookieStore.maximumLifetime) {
                violation("expiry \(expires) past the cap")
            }
        }
        if let date = HTTPDate.parseCookieDate(input.text), date < Date(timeIntervalSince1970: -11_644_473_600) {
            violation("cookie date before 1601 from \(input.text.debugDescription)")
        }
    }

    /// `Cache-Control` directives never come out negative, whatever the field.
    static let cacheControl = FuzzTarget(name: "cache-control") { input, violation in
        let directives = CacheControl(HTTPHeaderFields([("Cache-Control", input.text)]))
        for (name, value) in [("max-age", directives.maxAge)] where (value ?? 0) < 0 {
            violation("\(name) \(value ?? 0) from \(input.text.debugDescription)")
        }
    }

    /// A disk cache entry file (after the first NUL: before it, the key it is asked for): any bytes decode to
    /// nothing or to an entry that encodes back to itself, under that key only, with no key or URL in clear.
    static let cacheEntry = FuzzTarget(name: "cache-entry") { input, violation in
        let (keyBytes, file) = input.halves
        let key = keyBytes.isEmpty ? "https://h.example/a?token=secret" : keyBytes.text
        guard let response = CacheEntryCoding.decode(file, key: key) else { return }
        guard let again = CacheEntryCoding.encode(response, key: key),
            CacheEntryCoding.decode(again, key: key) == response
        else { return violation("a decoded entry did not survive encoding again") }
        if CacheEntryCoding.decode(again, key: key + "x") != nil { violation("an entry answered another key") }
        if key.utf8.count > 8, again.range(of: Data(key.utf8)) != nil { violation("the key was written in clear") }
    }

    /// A public-suffix list in publicsuffix.org's format (before the first NUL) and a domain (after): parsing never
    /// crashes, every single label stays a suffix, a plain rule of the list is a suffix unless an exception lifts
    /// it, and one label under a wildcard rule is a suffix too.
    static let publicSuffix = FuzzTarget(name: "public-suffix") { input, violation in
        let (listBytes, domainBytes) = input.halves
        let text = listBytes.text
        let list = PublicSuffixList(parsing: text)
        let domain = domainBytes.text.lowercased()
        if !domain.contains("."), !list.isPublicSuffix(domain) { violation("single label \(domain.debugDescription)") }
        _ = list.isPublicSuffix(domain)
        for line in text.split(whereSeparator: \.isNewline).prefix(64) {
            guard let token = line.split(whereSeparator: \.isWhitespace).first else { continue }
            let rule = String(token).lowercased()
            let labels = rule.split(separator: ".", omittingEmptySubsequences: false)
            guard !rule.hasPrefix("//"), !rule.hasPrefix("!"), labels.allSatisfy({ !$0.isEmpty && !$0.contains("!") })
            else { continue }
            let isWildcard =
                labels.first == "*" && labels.count > 1 && labels.dropFirst().allSatisfy { !$0.contains("*") }
            let name = isWildcard ? "x." + labels.dropFirst().joined(separator: ".") : rule
            // Exceptions are matched without case, as rules are: `!wWw.ck` lifts the rule `www.ck`.
            guard isWildcard || !rule.contains("*"), !text.lowercased().contains("!" + name) else { continue }
            if !list.isPublicSuffix(name) {
                violation("the rule \(rule.debugDescription) does not make \(name.debugDescription) a suffix")
            }
        }
    }
}
