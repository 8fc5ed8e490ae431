import RestingCore

/// Which domains are public suffixes — names under which anyone can register (`com`, `co.uk`, `github.io`) —
/// so that a cookie cannot be set for all of them at once (RFC 6265 §5.3 step 5).
///
/// Every single-label name (a top-level domain, `localhost`) is one. The built-in list adds the multi-label
/// suffixes most often met; an app that talks to arbitrary hosts can load Mozilla's full list
/// (publicsuffix.org) with ``init(parsing:)``, wildcard (`*.sch.uk`) and exception (`!www.ck`) rules included.
///
/// ```swift
/// let list = PublicSuffixList(parsing: try String(contentsOf: bundledListURL, encoding: .utf8))
/// let jar = InMemoryCookieJar(publicSuffixes: list)
/// ```
public struct PublicSuffixList: Sendable {
    /// Plain rules: the name itself is a public suffix.
    private let suffixes: Set<String>
    /// Wildcard rules `*.parent`, kept as `parent`: every name one label below it is a public suffix.
    private let wildcardParents: Set<String>
    /// Exception rules `!name`, kept as `name`: not a public suffix, whatever a wildcard says.
    private let exceptions: Set<String>

    /// A list with these rules besides every single label: plain suffixes (`co.uk`), wildcards (`*.sch.uk`: every
    /// name directly under `sch.uk`) and exceptions (`!www.ck`), in any case, without a leading dot.
    public init(suffixes: Set<String>) {
        var plain: Set<String> = []
        var wildcards: Set<String> = []
        var exceptions: Set<String> = []
        for rule in suffixes {
            let rule = rule.lowercased()
            if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if !rule.isEmpty {
                plain.insert(rule)
            }
        }
        self.suffixes = plain
        wildcardParents = wildcards
        self.exceptions = exceptions
    }

    /// The rules of a list in publicsuffix.org's format: one rule per line, the rule being the line's text up to
    /// its first white space; blank lines and `//` comments are skipped. Lines that are not rules (a lone `*`,
    /// `!` or `*.`, a wildcard that is not the first label) are skipped rather than trusted.
    public init(parsing list: String) {
        var rules: Set<String> = []
        for line in list.split(whereSeparator: \.isNewline) {
            guard let token = line.split(whereSeparator: \.isWhitespace).first, !token.hasPrefix("//") else {
                continue
            }
            let rule = String(token).lowercased()
            let name = rule.hasPrefix("*.") ? rule.dropFirst(2) : rule.hasPrefix("!") ? rule.dropFirst() : rule[...]
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard !name.isEmpty, labels.allSatisfy({ !$0.isEmpty && !$0.contains("*") && !$0.contains("!") }) else {
                continue
            }
            rules.insert(rule)
        }
        self.init(suffixes: rules)
    }

    /// Second-level registries of common country codes and the hosting platforms that give each user a subdomain.
    public static let builtIn = PublicSuffixList(suffixes: [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "net.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr", "com.cn", "net.cn", "org.cn", "gov.cn",
        "com.br", "net.br", "org.br", "com.mx", "com.ar", "co.in", "net.in", "org.in", "co.za", "com.tr",
        "com.sg", "com.hk", "com.tw", "co.il", "com.ua",
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com", "cloudfront.net",
        "azurewebsites.net", "vercel.app", "netlify.app", "pages.dev", "workers.dev", "web.app",
        "firebaseapp.com", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev", "onrender.com",
    ])

    /// Whether `domain` (lowercased, no leading dot) is a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let firstDot = domain.firstIndex(of: ".") else { return true }
        if exceptions.contains(domain) { return false }
        if suffixes.contains(domain) { return true }
        return wildcardParents.contains(String(domain[domain.index(after: firstDot)...]))
    }
}
