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
    public let method: HTTPMethod
    public let encoding: RequestEncoding
    /// The template as written.
    public let path: String
    let template: Result<PathTemplate, RestingError>

    public init(_ method: HTTPMethod, _ path: String, encoding: RequestEncoding) {
        self.method = method
        self.path = path
        self.encoding = encoding
        template = Result { () throws(RestingError) in try PathTemplate(path) }
    }
}
