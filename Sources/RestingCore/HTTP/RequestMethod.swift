/// An HTTP request method: the standard ones as constants, any other token by string.
///
/// ```swift
/// let purge: RequestMethod = "PURGE"
/// let endpoint = Endpoint<Nothing, Nothing>(purge, "/cache/{{key}}", encoding: .query)
/// ```
///
/// A method that is not a valid RFC 9110 token (empty, or containing spaces or separators) is rejected with
/// ``RestingError/invalidMethod(_:)`` before anything is sent.
public struct RequestMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token exactly as it is sent, e.g. `"GET"`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// `GET`: read a resource.
    public static let get: RequestMethod = "GET"
    /// `HEAD`: a `GET` without the body.
    public static let head: RequestMethod = "HEAD"
    /// `POST`: create, or any processing; not idempotent.
    public static let post: RequestMethod = "POST"
    /// `PUT`: replace a resource.
    public static let put: RequestMethod = "PUT"
    /// `PATCH`: change part of a resource; not idempotent.
    public static let patch: RequestMethod = "PATCH"
    /// `DELETE`: remove a resource.
    public static let delete: RequestMethod = "DELETE"
    /// `OPTIONS`: ask what a resource allows.
    public static let options: RequestMethod = "OPTIONS"
    /// `TRACE`: echo the request back.
    public static let trace: RequestMethod = "TRACE"
    /// `CONNECT`: open a tunnel (proxies).
    public static let connect: RequestMethod = "CONNECT"

    /// Whether the method is idempotent per RFC 9110 §9.2.2, so that it may be retried automatically.
    public var isIdempotent: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(self)
    }

    /// Whether a request with this method may carry a body. `GET` and `HEAD` may not: RestingKit refuses to
    /// send one rather than dropping it silently.
    public var allowsRequestBody: Bool { self != .get && self != .head }

    /// Whether the method is a syntactically valid token.
    public var isValidToken: Bool { HTTPToken.isToken(rawValue) }
}
