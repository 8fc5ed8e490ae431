#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL's origin (RFC 6454): scheme, host and port, compared ignoring case with default ports filled in.
/// Credentials stay within one; redirects and followed links that leave it drop them or are refused.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased: `http` or `https`.
    public let scheme: String
    /// The host, lowercased.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int

    /// The origin of an `http` or `https` URL with a host; `nil` for any other.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether `first` and `second` have one origin; URLs without one never do.
    public static func same(_ first: URL, _ second: URL) -> Bool {
        guard let one = Origin(first), let other = Origin(second) else { return false }
        return one == other
    }

    /// Whether going from `source` to `target` would leave HTTPS for plain HTTP.
    public static func isDowngrade(from source: URL, to target: URL) -> Bool {
        source.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https"
    }

    public var description: String { "\(scheme)://\(host):\(port)" }
}
