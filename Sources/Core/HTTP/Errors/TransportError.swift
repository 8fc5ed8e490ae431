/// Why a transport received no response, with the transport's own error code kept.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad class of failure, for retry decisions and messages.
    public enum Kind: String, Sendable, Equatable {
        case connectionFailed, dnsFailed, tlsFailed, timedOut, connectionReset, malformedResponse
        /// More redirects than the transport's limit.
        case tooManyRedirects
        /// A redirect led back to a URL already visited with the same method.
        case redirectLoop
        case other
    }

    public var kind: Kind
    /// The transport's own code (a `URLError` code, a `CURLcode`).
    public var code: Int
    /// Which code space `code` belongs to, e.g. `"NSURLErrorDomain"` or `"CURLcode"`.
    public var domain: String
    public var message: String

    public init(kind: Kind, code: Int, domain: String, message: String) {
        self.kind = kind
        self.code = code
        self.domain = domain
        self.message = message
    }

    public var description: String { "\(kind.rawValue) (\(domain) \(code)): \(message)" }
}
