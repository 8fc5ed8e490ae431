/// Why a transport received no response, with the transport's own error code kept.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad class of failure, for retry decisions and messages.
    @nonexhaustive
    public enum Kind: String, Sendable, Equatable {
        /// No connection could be made: refused, unreachable, or no network.
        case connectionFailed
        /// The host's name could not be resolved.
        case dnsFailed
        /// The TLS handshake failed: an untrusted or mismatched certificate, a pin that did not match, no
        /// common version.
        case tlsFailed
        /// A request, connect or idle timeout ran out, or the transfer fell below its minimum rate.
        case timedOut
        /// The connection closed or was reset before the response was complete.
        case connectionReset
        /// The server's reply broke HTTP: a bad status line or header, broken framing, a body cut short.
        case malformedResponse
        /// More redirects than the transport's limit.
        case tooManyRedirects
        /// A redirect led back to a URL already visited with the same method.
        case redirectLoop
        /// The proxy refused to open a tunnel to the origin: its credentials were missing or wrong (a `407` it
        /// kept answering, a SOCKS user it refused), it forbade the origin, or it could not reach it; ``message``
        /// has its status or its reason.
        case proxyRefused
        /// Anything else; ``code`` and ``message`` say what.
        case other
    }

    /// The broad class of failure.
    public var kind: Kind
    /// The transport's own code (a `URLError` code, a `CURLcode`).
    public var code: Int
    /// Which code space `code` belongs to, e.g. `"NSURLErrorDomain"` or `"CURLcode"`.
    public var domain: String
    /// The transport's description of the failure.
    public var message: String

    /// A failure of `kind`, with the transport's `code` in `domain` and its `message`.
    public init(kind: Kind, code: Int, domain: String, message: String) {
        self.kind = kind
        self.code = code
        self.domain = domain
        self.message = message
    }

    public var description: String { "\(kind.rawValue) (\(domain) \(code)): \(message)" }
}
