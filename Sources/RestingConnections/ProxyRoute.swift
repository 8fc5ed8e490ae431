import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The proxy one request goes through, in place of the transport's own setting: for the endpoint of an internal
/// service that must bypass the corporate proxy, or the one call that must go through it.
///
/// ```swift
/// var request = RestingRequest(endpoint: status)
/// request.attributes.proxy = .direct
/// ```
///
/// `CurlClient` honours it (the transport's TLS trust applies, its `noProxy` list does not); a transport that cannot
/// fails the call with ``/RestingCore/RestingError/unsupported(feature:transport:)``.
///
/// - Important: the transport's proxy credentials answer this proxy's `407` too: route a request only to a proxy
///   those credentials are meant for.
public enum ProxyRoute: Sendable, Equatable, CustomStringConvertible {
    /// No proxy, whatever the transport's setting.
    case direct
    /// Through this proxy (`http://`, `https://`, `socks5h://` …).
    case url(String)

    /// The route without a password the proxy's URL may carry.
    public var description: String {
        switch self {
        case .direct: "direct"
        case .url(let url): RedactionPolicy.default.address(url)
        }
    }
}

enum ProxyRouteKey: RequestAttributeKey {
    static let defaultValue: ProxyRoute? = nil
}

extension RequestAttributes {
    /// The proxy this request goes through in place of the transport's setting; default `nil` (the transport's).
    public var proxy: ProxyRoute? {
        get { self[ProxyRouteKey.self] }
        set { self[ProxyRouteKey.self] = newValue }
    }
}
