#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One operation of an API, described once: its method, its path template and how its body is encoded,
/// typed by what it sends and what it returns.
///
/// ```swift
/// let getPost = Endpoint<Nothing, Post>(.get, "/posts/{{post_id}}", encoding: .query)
/// let createPost = Endpoint<PostCreateModel, Post>(.post, "/posts", encoding: .json)
/// let maybePost = Endpoint<Nothing, Post?>(.get, "/drafts/latest", encoding: .query)  // nil for an empty body
/// ```
///
/// The response type decides how the body is read: a `Decodable` is decoded (an empty body is a
/// ``RestingError/decodingFailed(type:underlying:body:)``), an optional is `nil` exactly when the body is empty,
/// ``Nothing`` ignores the body, and `Data` returns it as it is.
///
/// The path may be relative to the client's base URL, or an absolute `http(s)://` URL that replaces it; see
/// ``PathTemplate`` for variables. It is parsed once, here; a malformed template fails every request made
/// from it with ``RestingError/invalidPathTemplate(template:reason:)``.
public struct Endpoint<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: Sendable {
    /// The HTTP method.
    public let method: RequestMethod
    /// How the request body is encoded: a query, JSON, a form or a multipart form.
    public let encoding: RequestEncoding
    /// The template as written.
    public let path: String
    let template: Result<PathTemplate, RestingError>
    let responseReading = ResponseReading(ResponseType.self)
    /// Options every request of this endpoint carries to the interceptors; a request's own win.
    public var attributes: RequestAttributes
    /// Decodes this endpoint's responses in place of the client's decoder (an API whose endpoints disagree
    /// on dates or key styles); `nil` uses the client's.
    public var decoder: JSONDecoder?

    /// An endpoint for `method` on the path template `path`, with its body encoded as `encoding`.
    public init(
        _ method: RequestMethod, _ path: String, encoding: RequestEncoding,
        attributes: RequestAttributes = RequestAttributes(), decoder: JSONDecoder? = nil
    ) {
        self.method = method
        self.path = path
        self.encoding = encoding
        self.attributes = attributes
        self.decoder = decoder
        template = Result { () throws(RestingError) in try PathTemplate(path) }
    }

    /// This endpoint with one attribute set:
    ///
    /// ```swift
    /// let token = Endpoint<Credentials, Token>(.post, "/oauth/token", encoding: .json)
    ///     .setting(\.requiresAuthentication, false)
    /// ```
    public func setting<Value>(_ attribute: WritableKeyPath<RequestAttributes, Value>, _ value: Value) -> Self {
        var endpoint = self
        endpoint.attributes[keyPath: attribute] = value
        return endpoint
    }
}
