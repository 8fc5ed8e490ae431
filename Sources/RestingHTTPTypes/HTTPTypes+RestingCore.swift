#if HTTPTypes
import HTTPTypes
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// RestingKit's request, response and headers, and swift-http-types' (the ecosystem's currency types), each made
// from the other. Both modules name a type `HTTPRequest`: in a file that imports both, write them
// `RestingCore.HTTPRequest` and `HTTPTypes.HTTPRequest`.
//
// What does not travel: a body (swift-http-types' types are heads only; pass one where a body is wanted), and a
// field's `origin` (HTTPFields has no place for it: a field made from one is addressed to its request's origin).

extension HTTPFields {
    /// RestingKit's header fields, in order, with every credential-carrying field (marked sensitive, or named like
    /// `Authorization`) set to `indexingStrategy = .disallow`, so that an HTTP/2 or HTTP/3 encoder keeps it out
    /// of its compression tables.
    ///
    /// ```swift
    /// let fields = try HTTPFields(request.headers)
    /// ```
    ///
    /// - Throws: ``/RestingCore/RestingError/invalidHeader(name:reason:)`` for a name that is not a token, or a value
    ///   with CR, LF, NUL or another character a field may not hold: swift-http-types would turn those into
    ///   spaces, and a header that changes silently is worse than one refused.
    public init(_ headers: HTTPHeaderFields) throws(RestingError) {
        self.init()
        reserveCapacity(headers.count)
        for field in headers {
            guard let name = HTTPField.Name(field.name) else {
                throw .invalidHeader(name: field.name, reason: "the name is not an HTTP token")
            }
            guard HTTPField.isValidValue(field.value) else {
                throw .invalidHeader(name: field.name, reason: "the value holds a character a field may not")
            }
            var converted = HTTPField(name: name, value: field.value)
            if field.carriesCredential { converted.indexingStrategy = .disallow }
            append(converted)
        }
    }
}

extension HTTPHeaderFields {
    /// swift-http-types' fields, in order; a field whose `indexingStrategy` is `.disallow` (or whose name is a
    /// credential's) becomes sensitive: redacted wherever it is printed, and kept within its request's origin.
    ///
    /// ```swift
    /// let headers = HTTPHeaderFields(response.headerFields)
    /// ```
    public init(_ fields: HTTPFields) {
        self.init()
        for field in fields {
            let name = field.name.rawName
            // A credential's name already makes it sensitive: marking it too would make a round trip unequal.
            let marked = field.indexingStrategy == .disallow && !SensitiveHeaders.contains(name)
            add(name: name, value: field.value, sensitive: marked)
        }
    }
}

extension HTTPTypes.HTTPRequest {
    /// The head of a RestingKit request: its method, URL (scheme, authority, and path with the query) and headers.
    ///
    /// ```swift
    /// let head = try HTTPTypes.HTTPRequest(restingRequest)
    /// ```
    ///
    /// - Throws: ``/RestingCore/RestingError/invalidURL(_:reason:)`` for a URL that is not `http` or `https` with
    ///   a host, or that carries a user name or password (an `authority` is not a place for credentials: send them
    ///   in `Authorization`); ``/RestingCore/RestingError/invalidMethod(_:)``; or what `HTTPFields.init(_:)` throws.
    public init(_ request: RestingCore.HTTPRequest) throws(RestingError) {
        guard let method = Method(request.method.rawValue) else { throw .invalidMethod(request.method.rawValue) }
        let parts = try RequestTarget(request.url)
        self.init(
            method: method, scheme: parts.scheme, authority: parts.authority, path: parts.path,
            headerFields: try HTTPFields(request.headers))
    }
}

extension RestingCore.HTTPRequest {
    /// A RestingKit request from a swift-http-types head and a body (a head has none).
    ///
    /// ```swift
    /// let request = try RestingCore.HTTPRequest(head, body: .bytes(payload))
    /// ```
    ///
    /// - Throws: ``/RestingCore/RestingError/invalidURL(_:reason:)`` when the head has no scheme, authority or path
    ///   (a `CONNECT` or an `OPTIONS *`), when they do not make an `http` or `https` URL, when the authority carries a
    ///   user name or password, and when the path would take the request anywhere but the head's authority — a path
    ///   that does not start with `/` (`@evil.example/x`, `:8443/x`) or that holds a fragment. A gateway forwarding
    ///   a client's `:path` cannot be made to send the request, and its credentials, to another host or port.
    public init(_ head: HTTPTypes.HTTPRequest, body: RequestBody = .empty) throws(RestingError) {
        guard let scheme = head.scheme, let authority = head.authority, let path = head.path else {
            throw .invalidURL("", reason: "the request has no scheme, authority or path")
        }
        guard path.hasPrefix("/") else {
            throw .invalidURL("\(scheme)://…", reason: "the path does not start with \"/\"")
        }
        guard let url = URL(string: "\(scheme)://\(authority)\(path)") else {
            throw .invalidURL("\(scheme)://…", reason: "the scheme, authority and path do not make a URL")
        }
        guard url.absoluteString.httpSchemeLength != nil, url.host != nil else {
            throw .invalidURL(RedactionPolicy.default.url(url), reason: "not an http or https URL with a host")
        }
        // The URL read back must be addressed exactly as the head is: nothing in the path or the authority may have
        // moved the host, the port or the path (RequestTarget refuses user-info, as the reverse conversion does).
        let target = try RequestTarget(url)
        guard target.scheme == scheme.lowercased(), target.authority.lowercased() == authority.lowercased(),
            target.path == path
        else {
            throw .invalidURL(
                RedactionPolicy.default.url(url),
                reason: "the path or the authority would change where the request goes")
        }
        self.init(
            method: RequestMethod(rawValue: head.method.rawValue), url: url,
            headers: HTTPHeaderFields(head.headerFields),
            body: body)
    }
}

extension HTTPTypes.HTTPResponse {
    /// The head of a RestingKit response: its status and headers.
    ///
    /// - Throws: ``/RestingCore/RestingError/invalidHeader(name:reason:)`` for a status outside 100–999 (no
    ///   transport hands one over, but a mock could), or what `HTTPFields.init(_:)` throws.
    public init(_ response: HTTPDataResponse) throws(RestingError) {
        guard (100...999).contains(response.status) else {
            throw .invalidHeader(name: ":status", reason: "\(response.status) is not a three-digit status")
        }
        self.init(status: Status(code: response.status), headerFields: try HTTPFields(response.headers))
    }
}

extension HTTPDataResponse {
    /// A RestingKit response from a swift-http-types head, with a body and the URL that answered.
    ///
    /// ```swift
    /// let response = HTTPDataResponse(head, body: ResponseBody(data))
    /// ```
    public init(_ head: HTTPTypes.HTTPResponse, body: ResponseBody = .empty, url: URL? = nil) {
        self.init(status: head.status.code, headers: HTTPHeaderFields(head.headerFields), body: body, url: url)
    }
}

/// The scheme, authority and path (with the query) that an HTTP/2 or HTTP/3 request head carries for a URL.
private struct RequestTarget {
    let scheme: String
    let authority: String
    let path: String

    init(_ url: URL) throws(RestingError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw .invalidURL(
                RedactionPolicy.default.url(url), reason: "only http and https URLs with a host have a request head")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .invalidURL(
                RedactionPolicy.default.url(url), reason: "credentials in the URL have no place in a request head")
        }
        // An IPv6 literal keeps (or regains) its brackets in an authority.
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.scheme = scheme
        authority = components.port.map { "\(bracketed):\($0)" } ?? bracketed
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.path = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
#endif
