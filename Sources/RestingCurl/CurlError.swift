import CCurl
import RestingCore

/// Maps libcurl's result codes to RestingKit's errors, keeping the `CURLcode`.
enum CurlError {
    static let domain = "CURLcode"

    /// What libcurl's `code` means for `handle`'s transfer or connection: a tunnel the proxy refused (its CONNECT
    /// answered with an error status, a 407 among them) is told apart from a connection that broke — the one is not
    /// worth a retry, the other may be.
    static func restingError(_ code: CURLcode, of handle: EasyHandle) -> RestingError {
        if let status = handle.long(CURLINFO_HTTP_CONNECTCODE), status >= 300 {
            return .transportFailed(
                TransportError(
                    kind: .proxyRefused, code: Int(code.rawValue), domain: domain,
                    message: "the proxy answered the tunnel's CONNECT with \(status)"))
        }
        return restingError(code, detail: handle.errorDetail)
    }

    static func restingError(_ code: CURLcode, detail: String) -> RestingError {
        let kind: TransportError.Kind
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .dnsFailed
        case CURLE_COULDNT_CONNECT:
            kind = .connectionFailed
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timedOut
        // A SOCKS proxy's refusal (its credentials or user id refused, the origin unreachable from it).
        case CURLE_PROXY:
            kind = .proxyRefused
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_USE_SSL_FAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            kind = .tlsFailed
        // libcurl reports a broken chunked framing as a receive error; only its message tells it from a reset.
        case CURLE_RECV_ERROR where detail.contains("chunked-encoding") || detail.contains("chunk"):
            kind = .malformedResponse
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            kind = .connectionReset
        // A server that resets an HTTP/3 stream (RESET_STREAM) ends its exchange as a closed connection does over
        // HTTP/1.1: a reset, which retry and offline decisions read as such. libcurl 8.14 says nothing (an empty
        // detail) when it is the request's stream the server closed, mid-upload.
        case CURLE_HTTP3 where detail.isEmpty || detail.contains("reset by server"),
            CURLE_PARTIAL_FILE where detail.contains("reset by server"):
            kind = .connectionReset
        case CURLE_WEIRD_SERVER_REPLY, CURLE_PARTIAL_FILE, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_UNSUPPORTED_PROTOCOL:
            kind = .malformedResponse
        case CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN:
            return .unsupported(feature: detail, transport: "CurlClient")
        default:
            kind = .other
        }
        let summary = String(cString: curl_easy_strerror(code))
        return .transportFailed(
            TransportError(
                kind: kind, code: Int(code.rawValue), domain: domain,
                message: detail.isEmpty ? summary : "\(summary): \(detail)"))
    }
}
