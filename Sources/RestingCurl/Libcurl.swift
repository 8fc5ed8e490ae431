import CCurl
import RestingConnections
import RestingCore

/// What the libcurl this process runs with can do, read from it at run time (`curl_version_info`): the library a
/// build links is not always the one it loads, and HTTP/3 depends on how it was built.
///
/// ```swift
/// if CurlClient.libcurl.supportsHTTP3 { configuration.httpVersion = .http3 }
/// print(CurlClient.libcurl)  // libcurl 8.14.1 (GnuTLS/3.7.9; HTTP/2, HTTP/3, Alt-Svc)
/// ```
public struct Libcurl: Sendable, CustomStringConvertible {
    /// Its version, `8.14.1`.
    public let version: String
    /// The TLS library it was built with, and that library's version: `OpenSSL/3.0.15`, `GnuTLS/3.7.9`.
    public let tlsLibrary: String
    /// Whether it speaks HTTP/2 (nghttp2).
    public let supportsHTTP2: Bool
    /// Whether it speaks HTTP/3 over QUIC (ngtcp2 and nghttp3, or quiche, or msh3).
    public let supportsHTTP3: Bool
    /// Whether it reads `Alt-Svc` headers.
    public let supportsAltSvc: Bool

    /// The loaded library's.
    static let loaded = Libcurl()

    private init() {
        let info = rk_version_info()?.pointee
        version = info.flatMap { $0.version.map { String(cString: $0) } } ?? "unknown"
        tlsLibrary = info.flatMap { $0.ssl_version.map { String(cString: $0) } } ?? "none"
        let features = Int32(info?.features ?? 0)
        supportsHTTP2 = features & CURL_VERSION_HTTP2 != 0
        supportsHTTP3 = features & CURL_VERSION_HTTP3 != 0
        supportsAltSvc = features & CURL_VERSION_ALTSVC != 0
    }

    public var description: String {
        let protocols = [(supportsHTTP2, "HTTP/2"), (supportsHTTP3, "HTTP/3"), (supportsAltSvc, "Alt-Svc")]
            .filter(\.0).map(\.1)
        return "libcurl \(version) (\(([tlsLibrary] + protocols).joined(separator: ", ")))"
    }

    /// Refuses `version` where this libcurl cannot honour it: HTTP/3 only without HTTP/3.
    func check(_ version: HTTPVersion) throws(RestingError) {
        guard version == .http3Only, !supportsHTTP3 else { return }
        throw .unsupported(feature: "HTTP/3 (\(description) was built without it)", transport: "CurlClient")
    }

    /// `version` as `CURLOPT_HTTP_VERSION` takes it here: HTTP/3 with fallback is TCP alone without HTTP/3 (libcurl
    /// would refuse the option, and then go on with its own default).
    func curlValue(_ version: HTTPVersion) -> Int {
        switch version {
        case .http1_1: Int(CURL_HTTP_VERSION_1_1)
        case .http2OverTLS: Int(CURL_HTTP_VERSION_2TLS)
        case .http2PriorKnowledge: Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        case .http3: supportsHTTP3 ? Int(CURL_HTTP_VERSION_3) : Int(CURL_HTTP_VERSION_2TLS)
        case .http3Only: Int(CURL_HTTP_VERSION_3ONLY)
        }
    }
}

extension CurlClient {
    /// What the loaded libcurl can do: its version, TLS library, and whether it speaks HTTP/2, HTTP/3 and `Alt-Svc`.
    public static var libcurl: Libcurl { Libcurl.loaded }
}
