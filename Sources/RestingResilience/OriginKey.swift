import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Origin {
    /// `url`'s origin as ``description`` spells it (`https://api.example.com:443`), read from the URL's text in one
    /// pass: the resilience links key every call by it, and `URL`'s component accessors cost a microsecond a call.
    /// A URL the pass does not take as plain (an IPv6, non-ASCII or percent-encoded host, another scheme) goes through
    /// ``init(_:)``; `nil` when it has no origin.
    static func key(of url: URL) -> String? {
        let text = url.absoluteString.utf8
        guard let schemeEnd = text.firstIndex(of: UInt8(ascii: ":")),
            text[schemeEnd...].starts(with: "://".utf8)
        else { return Origin(url)?.description }
        let scheme = String(decoding: text[..<schemeEnd], as: UTF8.self).lowercased()
        let authorityStart = text.index(schemeEnd, offsetBy: 3)
        let rest = text[authorityStart...]
        let authorityEnd = rest.firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        }
        var authority = rest[..<(authorityEnd ?? rest.endIndex)]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Substring.UTF8View?
        if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            port = Substring(authority[authority.index(after: colon)...]).utf8
        }
        guard scheme == "http" || scheme == "https", !host.isEmpty, host.first != UInt8(ascii: "["),
            host.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }),
            port?.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) ?? true
        else { return Origin(url)?.description }
        var number = scheme == "https" ? 443 : 80
        if let port, !port.isEmpty {
            guard let given = Int(Substring(port)), given <= 65535 else { return Origin(url)?.description }
            number = given
        }
        return "\(scheme)://\(String(decoding: host, as: UTF8.self).lowercased()):\(number)"
    }
}
