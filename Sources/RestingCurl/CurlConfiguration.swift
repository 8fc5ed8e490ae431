import RestingConnections
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a ``CurlClient`` connects, verifies and limits its transfers (also spelled `CurlConfiguration`).
///
/// ```swift
/// var configuration = CurlConfiguration()
/// configuration.connectTimeout = .seconds(5)
/// configuration.tls.pinnedPublicKeys = ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
/// configuration.proxy = .url("http://proxy.internal:3128", noProxy: ["localhost", "127.0.0.1"])
/// let client = try CurlClient(configuration: configuration)
/// ```
public struct CurlConfiguration: Sendable {
    /// The longest a connection may take to establish (TCP and TLS).
    public var connectTimeout: Duration = .seconds(30)
    /// The longest a whole exchange may take, unless the request sets its own `timeout`; `nil` for none.
    public var totalTimeout: Duration? = nil
    /// A transfer that moves no byte for this long fails as timed out (libcurl counts whole seconds);
    /// `nil` for none.
    public var idleTimeout: Duration? = .seconds(60)
    /// Once the response has begun, a transfer slower than this fails as timed out: what ends a server
    /// that drips a byte a second, which the idle timeout never sees. `nil` for none (event streams).
    public var minimumTransferRate: MinimumTransferRate? = .default
    /// Response bodies longer than this fail with ``/RestingCore/RestingError/responseTooLarge(limit:)``. A streamed
    /// body has no such limit, but over HTTP/3 a reader that falls behind does: libcurl cannot pause a QUIC stream
    /// and holds what arrives meanwhile, and past this much the call fails with the same error.
    public var maximumResponseSize: Int64 = TransportDefaults.maximumResponseSize
    /// Ask for gzip, deflate, brotli or zstd and decode the response transparently.
    public var automaticDecompression = true
    /// How many threads drive transfers, each with its own libcurl multi handle and connection cache: by default
    /// one per active processor core. Calls are spread over them, but for an HTTP/2 origin's, which go to the one
    /// thread holding its connection (see ``spreadsHTTP2Origins``); 1 gives a single-threaded client.
    public var driverCount = ProcessInfo.processInfo.activeProcessorCount
    /// Connections kept open per host; 0 for no limit. The limit holds for the whole client: each driver thread
    /// gets its share, and a limit below ``driverCount`` runs that many threads.
    public var maximumConnectionsPerHost = 0
    /// Connections open at once over all hosts; 0 for no limit. Requests beyond it wait in a queue. Shared out
    /// over the driver threads as ``maximumConnectionsPerHost`` is.
    public var maximumConnections = 0
    /// Which HTTP versions to speak: HTTP/2 over TLS when the server offers it, by default. HTTP/3
    /// (``/RestingConnections/HTTPVersion/http3``, ``/RestingConnections/HTTPVersion/http3Only``) needs a libcurl built
    /// with it (``CurlClient/libcurl``): `.http3Only` on one without fails the client's creation with
    /// `RestingError.unsupported`, `.http3` is then TCP alone.
    public var httpVersion: HTTPVersion = .http2OverTLS
    /// Whether an `https` origin that advertises HTTP/3 on its own host and port (`Alt-Svc: h3=":443"`, RFC 7838) is
    /// reached by its next calls over HTTP/3 (``/RestingConnections/HTTPVersion/http3``), for as long as it said (a day
    /// at most) — with ``httpVersion`` at its default, and a libcurl that speaks HTTP/3. Off by default, as HTTP/3 is.
    /// The advertisements are kept in memory, per client; a race QUIC lost stops the racing for five minutes.
    public var discoversHTTP3 = false
    /// Where the origins heard advertising HTTP/3 (``discoversHTTP3``) are kept between runs: read when the client is
    /// made, written when it shuts down (or is released), in curl's alt-svc file format (`curl --alt-svc FILE` reads
    /// it too); default `nil`, memory only. An origin read from it is raced again by its first call, as after an
    /// advertisement; what the file holds is checked as an `Alt-Svc` field is (a day at most, the origin's own host
    /// and port, its first MiB), and a file that cannot be read or written is left aside — it is a hint, not state.
    ///
    /// ```swift
    /// var configuration = CurlConfiguration()
    /// configuration.discoversHTTP3 = true
    /// configuration.alternativeServicesFile = cachesDirectory.appending(path: "alt-svc.txt").path
    /// ```
    public var alternativeServicesFile: String? = nil
    /// Whether the requests of an HTTP/2 origin are spread over the driver threads, each opening a connection of its
    /// own (`true`), or all go to the thread holding the origin's one connection (`false`, the default, as browsers
    /// and OkHttp keep one connection per origin). An origin that answers over HTTP/1.1 is spread either way.
    ///
    /// One connection is one thread's I/O: a single origin at tens of thousands of requests a second is faster
    /// spread (1.3× at 32 in flight on two cores shared with the server, `make bench`'s
    /// `curl_h2_c32_ratio_one_connection_vs_spread`); many origins, or a server that prefers fewer connections, are
    /// served as well by one each.
    public var spreadsHTTP2Origins = false
    /// Whether and how to use a proxy: none by default, whatever the environment says.
    public var proxy: Proxy = .none
    /// Talk to the server over this Unix domain socket instead of TCP (the URL's host still names it).
    public var unixSocketPath: String? = nil
    /// Server verification and client identity.
    public var tls = TLS()
    /// The TLS to an `https://` proxy itself, where it is not the origins': its own authorities, pins, client identity
    /// and minimum version. `nil` (the default): the proxy is verified as origins are, trusting ``TLS/caFile`` or
    /// ``TLS/caPEM`` too, with no pins and no client identity.
    ///
    /// ```swift
    /// configuration.proxy = .url("https://proxy.corp.example:3129")
    /// var proxyTLS = CurlConfiguration.TLS()
    /// proxyTLS.caFile = "/etc/corp/proxy-ca.pem"
    /// proxyTLS.pinnedPublicKeys = ["sha256//…"]
    /// configuration.proxyTLS = proxyTLS
    /// ```
    public var proxyTLS: TLS? = nil
    /// Where names resolve, where an origin's connections go, where they leave from, how long idle ones are kept;
    /// see ``/RestingConnections/ConnectionOptions``.
    public var connections = ConnectionOptions()
    /// What a proxy that asks for credentials is answered with; see ``ProxyCredentials``.
    public var proxyCredentials: ProxyCredentials? = nil
    /// Which request bodies wait for the server's go-ahead before they are sent; `nil` (the default) for none.
    /// See ``ExpectContinue``.
    public var expectContinue: ExpectContinue? = nil
    /// Sent when a request has no `User-Agent` of its own.
    public var userAgent: String? = "RestingKit"
    /// How the thread of upgraded connections (WebSockets) waits for their sockets: `epoll` on Linux, `poll(2)`
    /// elsewhere. Tests set `.poll` on Linux, so that the loop of the other platforms runs there too.
    package var socketWaiting = SocketWaiting.platformDefault

    /// The defaults above.
    public init() {}
}

extension CurlConfiguration {
    /// Which HTTP versions a client speaks (``/RestingConnections/HTTPVersion``, which a request may set for itself).
    public typealias HTTPVersion = RestingConnections.HTTPVersion

    /// Whether and how a client uses a proxy. A password in a proxy URL never shows in `print`, `dump` or a
    /// debugger's view.
    public enum Proxy: Sendable, CustomStringConvertible, CustomReflectable {
        /// Direct connections, whatever the environment says.
        case none
        /// The variables curl reads, with curl's rules: `http_proxy` (lower case only), `https_proxy`, `all_proxy` and
        /// `no_proxy`, read by libcurl for each transfer.
        case environment
        /// One proxy except for the hosts in `noProxy` (names, `.suffix`es or `*.suffix`es, addresses, bracketed
        /// or not, and, with libcurl 7.86 or later, CIDR ranges; an entry with a port, which libcurl would match with
        /// nothing, fails the client's creation): `http://` and `https://` (TLS to the proxy, trusting ``TLS/caFile`` or
        /// ``TLS/caPEM`` too), `socks4://` and `socks5://` (names resolved here), `socks4a://` and `socks5h://`
        /// (names resolved by the proxy).
        case url(String, noProxy: [String] = [])

        public var description: String {
            switch self {
            case .none: "none"
            case .environment: "environment"
            case .url(let url, let noProxy):
                "url(\(RedactionPolicy.default.address(url)), noProxy: \(noProxy))"
            }
        }

        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }

    /// What a proxy's `407` is answered with — Basic, Digest, or NTLM and Negotiate where this libcurl has them,
    /// whichever is the strongest the proxy offers — and a SOCKS5 proxy's username and password (RFC 1929). Sent to
    /// the proxy only, never to an origin (through a tunnel, an origin sees nothing of them); the password never
    /// shows in `print`, `dump` or a debugger's view.
    ///
    /// ```swift
    /// configuration.proxy = .url("http://proxy.internal:3128")
    /// configuration.proxyCredentials = CurlConfiguration.ProxyCredentials(username: "build", password: secret)
    /// ```
    public struct ProxyCredentials: Sendable, CustomStringConvertible, CustomReflectable {
        /// The user name the proxy knows.
        public var username: String
        /// The password; never printed.
        public var password: String

        /// `username` and `password`, for the proxy.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// Negotiate (SPNEGO) with the Kerberos ticket the process already holds — its credential cache, filled by
        /// `kinit` or the system's login — for a proxy that asks for it; no password is given here. The proxy is
        /// named in the proxy URL as its service principal names it (`HTTP/proxy.corp.example` →
        /// `http://proxy.corp.example:3128`). Where libcurl has no GSS-API, the proxy's `407` stays the answer.
        ///
        /// ```swift
        /// configuration.proxy = .url("http://proxy.corp.example:3128")
        /// configuration.proxyCredentials = .currentKerberosTicket
        /// ```
        public static let currentKerberosTicket = ProxyCredentials(username: "", password: "")

        public var description: String {
            if username.isEmpty, password.isEmpty { return "ProxyCredentials.currentKerberosTicket" }
            return "ProxyCredentials(username: \(username), password: \(RedactionPolicy.placeholder))"
        }

        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }

    /// Request bodies that wait for the server's go-ahead — `Expect: 100-continue` (RFC 9110 §10.1.1) — so that a
    /// server refusing the request (`401`, `413`) does so before the body is sent: a large upload to a server that
    /// will refuse it then costs its head, not its body. A body waits at most `timeout`, then is sent anyway (a server
    /// may ignore the expectation). Off by default, as in OkHttp, async-http-client and Go: the wait costs a round
    /// trip on every upload it applies to.
    ///
    /// ```swift
    /// configuration.expectContinue = CurlConfiguration.ExpectContinue(threshold: 1 << 20, timeout: .seconds(1))
    /// ```
    public struct ExpectContinue: Sendable, Equatable {
        /// Bodies of at least this many bytes wait, and those of unknown length; smaller ones are sent at once.
        public var threshold: Int64
        /// How long a body waits for the server's `100 Continue` or its refusal.
        public var timeout: Duration

        /// Bodies from `threshold` bytes (1 MiB by default) wait up to `timeout` (1 s by default).
        public init(threshold: Int64 = 1 << 20, timeout: Duration = .seconds(1)) {
            self.threshold = threshold
            self.timeout = timeout
        }
    }

    /// Server verification and client identity. Verification is on unless you turn it off.
    public struct TLS: Sendable {
        /// Certificate authorities to trust instead of the system's — for the server and for an HTTPS proxy —
        /// as a PEM file…
        public var caFile: String? = nil
        /// …or as PEM bytes in memory.
        public var caPEM: Data? = nil
        /// SPKI SHA-256 pins (`sha256//<base64>`): the server's public key must match one of them, on every
        /// host a request reaches, redirects included.
        public var pinnedPublicKeys: [String] = []
        /// A client identity, for servers that ask for one (mutual TLS).
        public var clientCertificate: ClientCertificate? = nil
        /// The oldest TLS version accepted: 1.2 by default.
        public var minimumVersion: MinimumVersion = .tls1_2
        /// Whether the server's certificate chain and name are checked. Turn off only for tests.
        public var verifiesPeer = true

        /// Verification on, the system's authorities, no pins, no client identity.
        public init() {}
    }

    /// A client identity for mutual TLS. Its password never shows in `print`, `dump` or a debugger's view.
    public enum ClientCertificate: Sendable, CustomStringConvertible, CustomReflectable {
        /// A PEM certificate and its PEM private key (files), for mutual TLS.
        case pem(certificateFile: String, keyFile: String, keyPassword: String? = nil)
        /// A PKCS#12 bundle (file) holding both.
        case pkcs12(file: String, password: String? = nil)

        public var description: String {
            switch self {
            case .pem(let certificateFile, let keyFile, let password):
                "pem(certificateFile: \(certificateFile), keyFile: \(keyFile), keyPassword: \(password == nil ? "nil" : RedactionPolicy.placeholder))"
            case .pkcs12(let file, let password):
                "pkcs12(file: \(file), password: \(password == nil ? "nil" : RedactionPolicy.placeholder))"
            }
        }

        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }

    /// The oldest TLS version a client accepts.
    public enum MinimumVersion: Sendable {
        // Version numbers read better with their dot as `_`.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        /// TLS 1.2 and later.
        case tls1_2
        // Version numbers read better with their dot as `_`.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        /// TLS 1.3 only.
        case tls1_3
    }
}
