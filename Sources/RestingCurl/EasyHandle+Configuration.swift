import CCurl
import RestingCore

extension EasyHandle {
    /// A handle carrying the client-wide options — callbacks, timeouts, decompression, HTTP version, proxy,
    /// Unix socket, TLS — set once for its whole life: transfers then set only what their request changes.
    static func make(for configuration: CurlConfiguration) throws(RestingError) -> EasyHandle {
        guard let handle = EasyHandle(configuration: configuration) else {
            throw .transportFailed(
                TransportError(kind: .other, code: 0, domain: CurlError.domain, message: "curl_easy_init failed"))
        }
        try handle.set(CURLOPT_NOSIGNAL, 1, "no signals")
        // HTTPRequest.validate already refuses other schemes; libcurl refuses them too, on every hop it makes.
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https", "protocols")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "redirect protocols")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_WRITEFUNCTION, writeCallback), "body sink")
        try handle.check(
            rk_easy_setopt_data_callback(handle.raw, CURLOPT_HEADERFUNCTION, headerCallback), "header sink")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_READFUNCTION, readCallback), "body reader")
        try handle.check(rk_easy_setopt_seek_callback(handle.raw, seekCallback), "body rewind")
        try handle.check(rk_easy_setopt_progress_callback(handle.raw, progressCallback), "progress")
        // Called only while a transfer turns CURLOPT_VERBOSE on, and then instead of printing anything.
        try handle.check(rk_easy_setopt_debug_callback(handle.raw, debugCallback), "wire view")
        try handle.set(CURLOPT_NOPROGRESS, 0, "progress")
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS, handle.clientConnectTimeout, "connect timeout")
        if let idle = configuration.idleTimeout {
            try handle.set(CURLOPT_LOW_SPEED_LIMIT, 1, "idle timeout")
            try handle.set(
                CURLOPT_LOW_SPEED_TIME, max(1, min(idle, .effectivelyForever).wholeSecondsRoundedUp), "idle timeout")
        }
        if configuration.automaticDecompression { try handle.set(CURLOPT_ACCEPT_ENCODING, "", "decompression") }
        try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: configuration.maximumResponseSize, "maximum response size")
        try Libcurl.loaded.check(configuration.httpVersion)
        try handle.set(CURLOPT_HTTP_VERSION, Libcurl.loaded.curlValue(configuration.httpVersion), "HTTP version")
        // A request's own User-Agent header replaces this one.
        if let userAgent = configuration.userAgent { try handle.set(CURLOPT_USERAGENT, userAgent, "user agent") }
        try handle.apply(configuration.proxy, credentials: configuration.proxyCredentials)
        if let path = configuration.unixSocketPath { try handle.set(CURLOPT_UNIX_SOCKET_PATH, path, "Unix socket") }
        try handle.apply(configuration.tls, sharedWithProxy: configuration.proxyTLS == nil)
        if let proxyTLS = configuration.proxyTLS { try handle.applyToProxy(proxyTLS) }
        try handle.apply(configuration.connections)
        if let expectContinue = configuration.expectContinue {
            try handle.set(
                CURLOPT_EXPECT_100_TIMEOUT_MS, timeoutMilliseconds(expectContinue.timeout),
                "Expect: 100-continue timeout")
        }
        return handle
    }

    /// A timeout as libcurl takes it: at least 1 ms (0 would mean none), at most a century, so that neither
    /// a negative nor a huge `Duration` reaches libcurl's own arithmetic.
    static func timeoutMilliseconds(_ timeout: Duration) -> Int {
        max(1, min(timeout, .effectivelyForever).wholeMilliseconds)
    }

    /// Routes this transfer through `route` (or back to the client's proxy, for `nil`), its credentials unchanged.
    func reroute(_ route: ProxyRoute?) throws(RestingError) {
        switch route {
        case nil: try apply(clientProxy)
        case .direct?: try apply(.none)
        case .url(let url)?: try apply(.url(url))
        }
        proxyRerouted = route != nil
    }

    private func apply(
        _ proxy: CurlConfiguration.Proxy, credentials: CurlConfiguration.ProxyCredentials?
    ) throws(RestingError) {
        if let credentials {
            try set(CURLOPT_PROXYUSERNAME, credentials.username, "proxy user name")
            try set(CURLOPT_PROXYPASSWORD, credentials.password, "proxy password")
        }
        // The scheme is the 407's to choose: Digest, NTLM or Negotiate as well as Basic (credentials in the proxy's
        // URL included), never sent before the proxy asked.
        try set(CURLOPT_PROXYAUTH, rk_proxy_auth_schemes, "proxy authentication")
        try apply(proxy)
    }

    private func apply(_ proxy: CurlConfiguration.Proxy) throws(RestingError) {
        switch proxy {
        case .none:
            try set(CURLOPT_PROXY, "", "proxy")
            try set(CURLOPT_NOPROXY, pointer: nil, "no-proxy list")
        case .environment:
            // Unset, libcurl reads the environment's variables.
            try set(CURLOPT_PROXY, pointer: nil, "proxy")
            try set(CURLOPT_NOPROXY, pointer: nil, "no-proxy list")
        case .url(let url, let noProxy):
            try set(CURLOPT_PROXY, url, "proxy")
            if let noProxy = try NoProxyList.curlForm(noProxy) {
                try set(CURLOPT_NOPROXY, noProxy, "no-proxy list")
            } else {
                try set(CURLOPT_NOPROXY, pointer: nil, "no-proxy list")
            }
        }
    }

    /// The origins' TLS; with `sharedWithProxy`, an HTTPS proxy's trust too: otherwise a proxy signed by the custom CA
    /// fails, and the fix people reach for is turning verification off.
    private func apply(_ tls: CurlConfiguration.TLS, sharedWithProxy: Bool) throws(RestingError) {
        try set(CURLOPT_SSL_VERIFYPEER, tls.verifiesPeer ? 1 : 0, "peer verification")
        try set(CURLOPT_SSL_VERIFYHOST, tls.verifiesPeer ? 2 : 0, "host verification")
        try set(CURLOPT_SSLVERSION, tls.minimumVersion.curlValue, "minimum TLS version")
        if let caFile = tls.caFile {
            try set(CURLOPT_CAINFO, caFile, "CA file")
            if sharedWithProxy { try set(CURLOPT_PROXY_CAINFO, caFile, "proxy CA file") }
        }
        if let caPEM = tls.caPEM {
            try set(CURLOPT_CAINFO_BLOB, blob: Array(caPEM), "in-memory CA")
            if sharedWithProxy { try set(CURLOPT_PROXY_CAINFO_BLOB, blob: Array(caPEM), "in-memory proxy CA") }
        }
        if !tls.pinnedPublicKeys.isEmpty {
            try set(CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"), "public key pinning")
        }
        if let certificate = tls.clientCertificate {
            try apply(certificate, options: (CURLOPT_SSLCERTTYPE, CURLOPT_SSLCERT, CURLOPT_SSLKEY, CURLOPT_KEYPASSWD))
        }
    }

    /// A client identity, through the origin's options or their `PROXY_` twins.
    private func apply(
        _ certificate: CurlConfiguration.ClientCertificate,
        options: (type: CURLoption, certificate: CURLoption, key: CURLoption, password: CURLoption)
    ) throws(RestingError) {
        switch certificate {
        case .pem(let certificateFile, let keyFile, let password):
            try set(options.type, "PEM", "client certificate")
            try set(options.certificate, certificateFile, "client certificate")
            try set(options.key, keyFile, "client key")
            if let password { try set(options.password, password, "client key password") }
        case .pkcs12(let file, let password):
            try set(options.type, "P12", "client certificate")
            try set(options.certificate, file, "client certificate")
            if let password { try set(options.password, password, "client certificate password") }
        }
    }

    /// An HTTPS proxy's own TLS (``CurlConfiguration/proxyTLS``): libcurl's `PROXY_` twin of each origin option.
    private func applyToProxy(_ tls: CurlConfiguration.TLS) throws(RestingError) {
        try set(CURLOPT_PROXY_SSL_VERIFYPEER, tls.verifiesPeer ? 1 : 0, "proxy peer verification")
        try set(CURLOPT_PROXY_SSL_VERIFYHOST, tls.verifiesPeer ? 2 : 0, "proxy host verification")
        try set(CURLOPT_PROXY_SSLVERSION, tls.minimumVersion.curlValue, "proxy minimum TLS version")
        if let caFile = tls.caFile { try set(CURLOPT_PROXY_CAINFO, caFile, "proxy CA file") }
        if let caPEM = tls.caPEM { try set(CURLOPT_PROXY_CAINFO_BLOB, blob: Array(caPEM), "in-memory proxy CA") }
        if !tls.pinnedPublicKeys.isEmpty {
            try set(
                CURLOPT_PROXY_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"), "proxy public key pinning")
        }
        if let certificate = tls.clientCertificate {
            try apply(
                certificate,
                options: (
                    CURLOPT_PROXY_SSLCERTTYPE, CURLOPT_PROXY_SSLCERT, CURLOPT_PROXY_SSLKEY, CURLOPT_PROXY_KEYPASSWD
                ))
        }
    }
}

extension CurlConfiguration.MinimumVersion {
    var curlValue: Int {
        switch self {
        case .tls1_2: Int(CURL_SSLVERSION_TLSv1_2)
        case .tls1_3: Int(CURL_SSLVERSION_TLSv1_3)
        }
    }
}
