import Foundation
import RestingConnections
import RestingCore
import Testing

@testable import RestingCurl

/// A proxy URL's password in a printed route. libcurl takes a proxy without a scheme
/// (`[scheme://][user:password@]host[:port]`, the scheme then defaulting to `http`), and so does `CurlClient`, which
/// hands both the client's and a request's proxy to libcurl as they are. Without `://`, Foundation reads `alice` as the
/// URL's scheme and the rest as a path: there is no user information for `RedactionPolicy.url` to remove, and the
/// description prints the password.
@Suite("A scheme-less proxy URL's password in descriptions")
struct ProxyDescriptionHostileTests {
    static let proxies = ["alice:s3cret@proxy.internal:3128", "alice:s3cret@127.0.0.1:3128"]

    /// `ProxyRoute.description`: "The route without a password the proxy's URL may carry."
    @Test("a request's proxy route prints without its password, whatever the URL's form", arguments: proxies)
    func proxyRouteDescriptionHidesPassword(_ proxy: String) {
        var attributes = RequestAttributes()
        attributes.proxy = .url(proxy)
        let printed = [String(describing: ProxyRoute.url(proxy)), "\(attributes.proxy!)"]
        for text in printed { #expect(!text.contains("s3cret"), "printed: \(text)") }
    }

    /// `CurlConfiguration.Proxy`: "A password in a proxy URL never shows in `print`, `dump` or a debugger's view."
    @Test("a client's proxy prints without its password, whatever the URL's form", arguments: proxies)
    func clientProxyDescriptionHidesPassword(_ proxy: String) {
        let route = CurlConfiguration.Proxy.url(proxy)
        var dumped = ""
        dump(route, to: &dumped)
        for text in [String(describing: route), String(reflecting: route), dumped] {
            #expect(!text.contains("s3cret"), "printed: \(text)")
        }
    }
}
