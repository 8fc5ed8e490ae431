import Foundation
import Testing

@testable import RestingCookies
@testable import RestingCore

/// RFC 6265's rules, as the cookie store applies them: parsing, domain and path matching, host-only cookies,
/// `Secure`, expiry, public suffixes, IP addresses and limits. No jar, no clock, no socket.
@Suite("Cookie rules (RFC 6265)")
struct CookieRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func store(_ fields: [String], from url: String) -> CookieStore {
        var store = CookieStore(publicSuffixes: .builtIn)
        for field in fields { store.receive(field, from: URL(string: url)!, now: now) }
        return store
    }

    func sent(_ store: inout CookieStore, to url: String) -> String {
        store.cookies(for: URL(string: url)!, now: now).map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    @Test(
        "domain matching (§5.1.3)",
        arguments: [
            ("example.com", "example.com", true), ("www.example.com", "example.com", true),
            ("a.b.example.com", "example.com", true),
            ("notexample.com", "example.com", false), ("example.com", "www.example.com", false),
            ("example.com.evil.net", "example.com", false),
            ("192.168.0.1", "192.168.0.1", true), ("10.192.168.0.1", "168.0.1", true), ("1.2.3.4", "2.3.4", false),
        ])
    func domainMatching(_ host: String, _ domain: String, _ matches: Bool) {
        #expect(CookieStore.domain(host, matches: domain) == matches)
    }

    @Test(
        "path matching (§5.1.4)",
        arguments: [
            ("/", "/", true), ("/docs", "/docs", true), ("/docs/", "/docs", true), ("/docs/web", "/docs", true),
            ("/docs/web", "/docs/", true), ("/docsets", "/docs", false), ("/", "/docs", false),
            ("/Docs", "/docs", false),
        ])
    func pathMatching(_ requestPath: String, _ cookiePath: String, _ matches: Bool) {
        #expect(CookieStore.path(requestPath, matches: cookiePath) == matches)
    }

    @Test(
        "the default path is the request path up to its last slash (§5.1.4)",
        arguments: [
            ("https://h.example/", "/"), ("https://h.example", "/"), ("https://h.example/login", "/"),
            ("https://h.example/account/login", "/account"), ("https://h.example/a/b/", "/a/b"),
        ])
    func defaultPath(_ url: String, _ path: String) {
        #expect(CookieStore.defaultPath(of: URL(string: url)!) == path)
    }

    @Test(
        "a cookie without Domain is host-only; with Domain it reaches subdomains, but never a sibling or a parent's other host"
    )
    func hostOnlyAndDomain() {
        var store = store(
            ["host=1", "shared=2; Domain=example.com", "dotted=3; Domain=.EXAMPLE.com"],
            from: "https://www.example.com/")
        #expect(sent(&store, to: "https://www.example.com/") == "host=1; shared=2; dotted=3")
        #expect(sent(&store, to: "https://api.example.com/") == "shared=2; dotted=3")
        #expect(sent(&store, to: "https://deep.www.example.com/") == "shared=2; dotted=3")
        #expect(sent(&store, to: "https://example.org/") == "")
        let rejected = self.store(
            ["sibling=1; Domain=api.example.com", "unrelated=1; Domain=example.org"], from: "https://www.example.com/")
        #expect(rejected.cookies.isEmpty, "a host sets cookies for itself and its parents only")
    }

    @Test("no cookie for a public suffix as a whole; a host that is itself a suffix gets a host-only cookie")
    func publicSuffixes() {
        let tld = store(
            ["a=1; Domain=com", "b=1; Domain=co.uk", "c=1; Domain=github.io"], from: "https://www.example.co.uk/")
        #expect(tld.cookies.isEmpty)
        let pages = store(["d=1; Domain=github.io"], from: "https://user.github.io/")
        #expect(pages.cookies.isEmpty, "one user's page cannot set cookies for every user's")
        var own = store(["e=1; Domain=localhost"], from: "http://localhost/")
        #expect(own.cookies.first?.isHostOnly == true)
        #expect(sent(&own, to: "http://localhost/x") == "e=1")
    }

    @Test("#11 a loaded list's wildcard rule makes every name under it a suffix, an exception rule lifts that")
    func publicSuffixWildcards() {
        let list = PublicSuffixList(
            parsing: """
                // ===BEGIN ICANN DOMAINS===
                uk
                *.sch.uk
                !www.ck
                *.ck
                  co.uk   trailing words are comments
                """)
        #expect(list.isPublicSuffix("school1.sch.uk"), "one label under a wildcard")
        #expect(!list.isPublicSuffix("evil.school1.sch.uk"))
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("anything.ck") && !list.isPublicSuffix("www.ck"))
        var store = CookieStore(publicSuffixes: list)
        store.receive("sid=fixed; Domain=school1.sch.uk", from: URL(string: "https://evil.school1.sch.uk/")!, now: now)
        #expect(store.cookies.isEmpty, "evil.school1.sch.uk cannot set a cookie for every school1.sch.uk site")
        store.receive("own=1; Domain=evil.school1.sch.uk", from: URL(string: "https://evil.school1.sch.uk/")!, now: now)
        #expect(store.cookies.map(\.name) == ["own"], "its own name it can")
    }

    @Test("the list format: comments, blank lines and malformed rules are skipped, case is ignored")
    func publicSuffixParsing() {
        let list = PublicSuffixList(parsing: "// comment\n\n*\n!\n*.\nfoo.*.bar\nEXAMPLE.Org\n\t\n")
        #expect(list.isPublicSuffix("example.org"))
        #expect(!list.isPublicSuffix("foo.x.bar") && !list.isPublicSuffix("a.b"))
        #expect(list.isPublicSuffix("com"), "every single label stays a suffix")
    }

    @Test("an IP address host accepts only itself as Domain, and its cookies are host-only")
    func ipAddresses() {
        var store = store(["a=1; Domain=127.0.0.1", "b=2; Domain=0.0.1", "c=3"], from: "http://127.0.0.1:8080/")
        #expect(store.cookies.map(\.name) == ["a", "c"])
        #expect(store.cookies.allSatisfy { $0.isHostOnly })
        #expect(sent(&store, to: "http://127.0.0.1:9090/") == "a=1; c=3", "cookies do not isolate by port (§8.5)")
        #expect(sent(&store, to: "http://10.127.0.0.1/") == "")
        var v6 = self.store(["d=4"], from: "http://[::1]:8080/")
        #expect(sent(&v6, to: "http://[::1]:8080/") == "d=4")
    }

    @Test("Secure cookies go over HTTPS only, and only HTTPS may set one, or shadow one from HTTP")
    func secure() {
        var store = store(["token=s; Secure", "plain=p"], from: "https://example.com/")
        #expect(sent(&store, to: "https://example.com/") == "token=s; plain=p")
        #expect(sent(&store, to: "http://example.com/") == "plain=p")
        store.receive("token=overwritten", from: URL(string: "http://example.com/")!, now: now)
        store.receive("fake=1; Secure", from: URL(string: "http://example.com/")!, now: now)
        #expect(sent(&store, to: "https://example.com/") == "token=s; plain=p")
    }

    @Test("__Secure- and __Host- prefixes hold their promises")
    func prefixes() {
        let accepted = store(["__Secure-a=1; Secure", "__Host-b=2; Secure; Path=/"], from: "https://example.com/")
        #expect(accepted.cookies.map(\.name) == ["__Secure-a", "__Host-b"])
        let refused = store(
            ["__Secure-c=1", "__Host-d=2; Secure; Path=/; Domain=example.com", "__Host-e=3; Secure; Path=/x"],
            from: "https://www.example.com/x/y")
        #expect(refused.cookies.isEmpty)
    }

    @Test("Max-Age wins over Expires in any order; zero or negative Max-Age and past Expires delete")
    func expiry() {
        var store = store(
            [
                "a=1; Expires=Wed, 01 Jan 2020 00:00:00 GMT; Max-Age=60",
                "b=2; Max-Age=60; Expires=Wed, 01 Jan 2020 00:00:00 GMT",
                "c=3; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
                "d=4",
            ], from: "https://example.com/")
        #expect(store.cookies.map(\.name) == ["a", "b", "c", "d"])
        #expect(store.cookies[0].expires == now.addingTimeInterval(60))
        #expect(store.cookies[2].expires == now.addingTimeInterval(CookieStore.maximumLifetime), "capped at 400 days")
        #expect(!store.cookies[3].isPersistent)
        for deletion in ["a=; Max-Age=0", "b=; Max-Age=-1", "c=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"] {
            store.receive(deletion, from: URL(string: "https://example.com/")!, now: now)
        }
        #expect(sent(&store, to: "https://example.com/") == "d=4")
        var later = self.store(["e=5; Max-Age=10"], from: "https://example.com/")
        #expect(
            later.cookies(for: URL(string: "https://example.com/")!, now: now.addingTimeInterval(11)).isEmpty,
            "expired cookies are not sent")
    }

    @Test(
        "a cookie replaces the one with the same name, domain and path, keeping its creation time; other paths coexist")
    func replacement() {
        var store = store(["id=1; Path=/", "id=2; Path=/docs"], from: "https://example.com/")
        let created = store.cookies[0].created
        store.receive("id=3; Path=/", from: URL(string: "https://example.com/")!, now: now.addingTimeInterval(5))
        #expect(store.cookies.count == 2)
        #expect(store.cookies.first { $0.path == "/" }?.created == created)
        #expect(sent(&store, to: "https://example.com/docs/a") == "id=2; id=3", "the longer path first (§5.4)")
    }

    @Test(
        "malformed fields are ignored, attributes that cannot be read are skipped",
        arguments: [
            ("novalue", nil), ("=value", nil), ("a=b\u{1}c", nil), (" a = b ; Path=relative", "a=b @ /x"),
            ("a=b; Max-Age=1x; Domain=", "a=b @ /x"), ("a=\"quoted\"", "a=\"quoted\" @ /x"),
            ("a=" + String(repeating: "v", count: 4096), nil),
            ("a=" + String(repeating: "v", count: 4095), "a=<4095 v> @ /x"),
            ("a=b; Path=/" + String(repeating: "p", count: 1100), "a=b @ /x"),
        ])
    func malformed(_ field: String, _ kept: String?) {
        let store = store([field], from: "https://example.com/x/page")
        // A long value is shown by its length, so that a failure stays readable.
        let value = { (value: String) in value.count > 100 ? "<\(value.count) \(value.prefix(1))>" : value }
        #expect(store.cookies.first.map { "\($0.name)=\(value($0.value)) @ \($0.path)" } == kept)
    }

    @Test(
        "cookie dates are read leniently (§5.1.1)",
        arguments: [
            ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480.0), ("Wednesday, 21-Oct-15 07:28:00 GMT", 1_445_412_480),
            ("Wed Oct 21 07:28:00 2015", 1_445_412_480), ("21 oct 2015 7:28:0", 1_445_412_480),
            ("Thu, 01 Jan 70 00:00:00", 0),
        ])
    func cookieDates(_ text: String, _ seconds: TimeInterval) {
        #expect(HTTPDate.parseCookieDate(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(
        "impossible cookie dates are no dates",
        arguments: ["Feb 30 2015 00:00:00", "31 Oct 1600 00:00:00", "21 Oct 2015", "21 Oct 2015 24:00:00", ""])
    func invalidCookieDates(_ text: String) {
        #expect(HTTPDate.parseCookieDate(text) == nil)
    }

    @Test("fields a transport joined with commas are split at cookie boundaries, never inside a date")
    func joinedFields() {
        let joined = "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/, b=2, c=3; Max-Age=5"
        #expect(
            HTTPHeaderFields.splitJoinedSetCookie(joined) == [
                "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/", "b=2", "c=3; Max-Age=5",
            ])
    }

    @Test(
        "past its limit for a domain, the least recently used cookies go; past the jar's limit, the least recently used of all"
    )
    func limits() {
        #expect(CookieStore(publicSuffixes: .builtIn).maximumPerDomain == 50, "RFC 6265 §6.1's minimums by default")
        #expect(CookieStore(publicSuffixes: .builtIn).maximumCount == 3000)
        var store = CookieStore(publicSuffixes: .builtIn, maximumPerDomain: 5, maximumCount: 12)
        let url = URL(string: "https://example.com/")!
        for index in 0..<6 { store.receive("c\(index)=v", from: url, now: now.addingTimeInterval(TimeInterval(index))) }
        #expect(store.cookies.map(\.name) == ["c1", "c2", "c3", "c4", "c5"])
        _ = store.cookies(for: url, now: now.addingTimeInterval(10))  // every cookie of example.com now recently used
        for host in 0..<3 {
            let hostURL = URL(string: "https://h\(host).example.net/")!
            for index in 0..<3 {
                store.receive("h\(host)c\(index)=v", from: hostURL, now: now.addingTimeInterval(TimeInterval(host)))
            }
        }
        #expect(store.cookies.count == 12)
        #expect(store.cookies.filter { $0.domain == "example.com" }.count == 5, "the recently used survive")
        #expect(
            store.cookies.filter { $0.name.hasPrefix("h0") }.count == 1,
            "two of the least recently used host's three went")
        #expect(store.cookies.filter { $0.name.hasPrefix("h1") || $0.name.hasPrefix("h2") }.count == 6)
    }
}
