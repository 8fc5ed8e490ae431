import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Translations between RestingCore's types and Foundation's: an ``/RestingCore/HTTPRequest`` into a `URLRequest`, an
/// `HTTPURLResponse`'s headers into ``/RestingCore/HTTPHeaderFields``, and a `URLError` into a
/// ``/RestingCore/RestingError``.
///
/// ```swift
/// let urlRequest = try URLSessionMapping.urlRequest(for: request)
/// ```
enum URLSessionMapping {
    /// The request without its body when the body is streamed (``TaskExchange`` sets the stream).
    static func urlRequest(for request: HTTPRequest) throws(RestingError) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        if case .bytes(let data) = request.body.source { urlRequest.httpBody = data }
        // FoundationNetworking frames the body (a length for bytes, chunked for streams); a caller's framing
        // header beside its own would let the declared length differ from the bytes sent.
        for field in request.headers where !HTTPHeaderFields.isFraming(field.name) {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        return urlRequest
    }

    /// The response's headers, sorted by name: `HTTPURLResponse` keeps neither order nor repeats (it joins
    /// repeated fields with commas; `Set-Cookie` fields are split again, as each is one cookie).
    static func headers(of response: HTTPURLResponse) -> HTTPHeaderFields {
        // Each name is lowercased once, for the sort, rather than twice per comparison.
        var fields: [(key: String, field: HTTPHeaderFields.Field)] = []
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String else { continue }
            let text = value as? String ?? "\(value)"
            let sortKey = name.lowercased()
            guard sortKey == "set-cookie" else {
                fields.append((sortKey, HTTPHeaderFields.Field(name: name, value: text)))
                continue
            }
            for cookie in HTTPHeaderFields.splitJoinedSetCookie(text) {
                fields.append((sortKey, HTTPHeaderFields.Field(name: name, value: cookie)))
            }
        }
        fields.sort { $0.key < $1.key }
        return HTTPHeaderFields(fields.map(\.field))
    }

    /// Parts of libcurl's messages for a reply that breaks HTTP's framing, as FoundationNetworking passes them on.
    private static let malformedReplyMessages = [
        "bytes remaining to read", "outstanding read data remaining", "chunked-encoding", "HTTP/0.9",
        "Out of memory", "Weird server reply", "Too large response headers", "Unsupported response code",
        "Unsupported HTTP version",
        // FoundationNetworking could not parse a header line (a status line without the space after its code, say)
        // and stopped libcurl from its header callback.
        "Failed writing header",
    ]

    private static func isMalformedReply(_ error: URLError) -> Bool {
        malformedReplyMessages.contains { error.localizedDescription.contains($0) }
    }

    /// Parts of libcurl's messages for a TLS handshake or verification failure (an untrusted or mismatched
    /// certificate among them), which FoundationNetworking passes on as NSURLErrorUnknown.
    private static let tlsFailureMessages = [
        "SSL certificate problem", "SSL peer certificate", "SSL connect error", "SSL: no alternative certificate",
        "certificate verify failed", "SSL_connect", "TLS connect error",
    ]

    private static func isTLSFailure(_ error: URLError) -> Bool {
        tlsFailureMessages.contains { error.localizedDescription.contains($0) }
    }

    static func restingError(_ error: any Error) -> RestingError {
        guard let urlError = error as? URLError else {
            return .transportFailed(TransportError(kind: .other, code: 0, domain: "URLSession", message: "\(error)"))
        }
        let kind: TransportError.Kind
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: kind = .timedOut
        case .cannotFindHost, .dnsLookupFailed: kind = .dnsFailed
        case .cannotConnectToHost, .notConnectedToInternet: kind = .connectionFailed
        case .networkConnectionLost: kind = .connectionReset
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            kind = .tlsFailed
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            kind = .malformedResponse
        // FoundationNetworking reports libcurl's framing errors — a body cut short of its length or of its last
        // chunk, a broken chunk size, a head too long, an HTTP/0.9 reply — as NSURLErrorUnknown or
        // unsupportedURL; only libcurl's message tells them apart. CurlClient calls them malformed responses.
        case .unknown where isMalformedReply(urlError), .unsupportedURL where isMalformedReply(urlError):
            kind = .malformedResponse
        // Likewise a certificate libcurl does not trust: CurlClient calls it a TLS failure, and so do we.
        case .unknown where isTLSFailure(urlError): kind = .tlsFailed
        default: kind = .other
        }
        return .transportFailed(
            TransportError(
                kind: kind, code: urlError.code.rawValue, domain: NSURLErrorDomain,
                message: urlError.localizedDescription))
    }
}
