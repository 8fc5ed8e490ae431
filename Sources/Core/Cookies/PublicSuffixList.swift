/// Which domains are public suffixes — names under which anyone can register (`com`, `co.uk`, `github.io`) —
/// so that a cookie cannot be set for all of them at once (RFC 6265 §5.3 step 5).
///
/// Every single-label name (a top-level domain, `localhost`) is one. The built-in list adds the multi-label
/// suffixes most often met; an app that talks to arbitrary hosts can load Mozilla's full list
/// (publicsuffix.org) into ``init(suffixes:)``.
public struct PublicSuffixList: Sendable {
    private let suffixes: Set<String>

    /// A list with these multi-label suffixes (lowercased, without leading dot) besides every single label.
    public init(suffixes: Set<String>) { self.suffixes = Set(suffixes.map { $0.lowercased() }) }

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
        !domain.contains(".") || suffixes.contains(domain)
    }
}
