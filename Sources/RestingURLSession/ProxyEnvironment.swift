// The module links Foundation (FoundationNetworking needs it), which brings the C library's `getenv` too.
import Foundation

/// The proxy environment variables libcurl reads for a transfer, with its rules: `http_proxy` in lower case only (a
/// CGI request's `Proxy` header can set `HTTP_PROXY`), `https_proxy` and `all_proxy` in either case, and a `no_proxy`
/// of `*` for none. FoundationNetworking's libcurl follows them whatever the session's configuration says.
enum ProxyEnvironment {
    /// The variable that would send a transfer to `url` through a proxy, if any.
    static func variable(for url: URL) -> String? {
        if ["no_proxy", "NO_PROXY"].contains(where: { value(of: $0) == "*" }) { return nil }
        let names =
            ["https", "wss"].contains(url.scheme?.lowercased())
            ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
        return names.first { value(of: $0) != nil }
    }

    /// The variable's value, unless it is unset or empty.
    private static func value(of name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }
}
