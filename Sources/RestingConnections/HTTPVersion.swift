import RestingCore

/// Which HTTP versions a call may speak: for a whole client (`CurlConfiguration.httpVersion`), or for one request
/// (``RestingCore/RequestAttributes/httpVersion``).
///
/// ```swift
/// var configuration = CurlConfiguration()
/// configuration.httpVersion = .http3  // QUIC raced against TCP where libcurl speaks HTTP/3, TCP alone elsewhere
/// var upload = RestingRequest(endpoint: putFile, body: file)
/// upload.attributes.httpVersion = .http2OverTLS  // this call over TCP whatever the client says
/// ```
///
/// HTTP/3 is opt-in: UDP is often filtered between services, a QUIC connection costs more CPU per byte than TLS over
/// TCP, and most libcurl builds (Debian's own, FoundationNetworking's) do not speak it — a transport that cannot
/// takes ``http3`` as TCP and refuses ``http3Only`` with ``/RestingCore/RestingError/unsupported(feature:transport:)``.
public enum HTTPVersion: Sendable, Equatable {
    // Version numbers read better with their dot as `_`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// HTTP/1.1 only.
    case http1_1
    /// HTTP/2 when TLS negotiates it (ALPN), HTTP/1.1 otherwise. Requests to one host share a connection.
    case http2OverTLS
    /// HTTP/2 with prior knowledge, also over plain TCP.
    case http2PriorKnowledge
    /// HTTP/3 over QUIC for `https` URLs, raced against a TCP connection (HTTP/2 or 1.1): the first to connect
    /// carries the call, so a network that drops UDP costs a connection attempt, not the call. Where the transport
    /// cannot speak HTTP/3, TCP alone, as ``http2OverTLS``.
    case http3
    /// HTTP/3 over QUIC only: no TCP connection is tried. Where the transport cannot speak HTTP/3, the call fails with
    /// ``/RestingCore/RestingError/unsupported(feature:transport:)`` before anything is sent — never a silent
    /// downgrade.
    case http3Only

    /// Whether this preference asks for HTTP/3.
    public var asksForHTTP3: Bool { self == .http3 || self == .http3Only }
}

enum HTTPVersionKey: RequestAttributeKey {
    static let defaultValue: HTTPVersion? = nil
}

extension RequestAttributes {
    /// The HTTP versions this request may speak, in place of the transport's setting; default `nil` (the
    /// transport's).
    public var httpVersion: HTTPVersion? {
        get { self[HTTPVersionKey.self] }
        set { self[HTTPVersionKey.self] = newValue }
    }
}
