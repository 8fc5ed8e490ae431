/// The absence of a body: use it as an endpoint's request type when nothing is sent, and as its response
/// type when the response is ignored (whatever the server sends back).
///
/// ```swift
/// let deletePost = Endpoint<Nothing, Nothing>(.delete, "/posts/{{id}}", encoding: .query)
/// ```
public struct Nothing: Codable, Sendable, Hashable {
    /// The one value: no body.
    public init() {}
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {}
}
