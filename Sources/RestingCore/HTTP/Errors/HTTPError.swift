#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response whose status the client does not accept, kept whole so that the caller can read the API's own
/// error body.
///
/// ```swift
/// struct APIError: Decodable { let error: String }
/// catch .httpError(let error) {
///     let apiError = try error.decodeBody(as: APIError.self)
/// }
/// ```
public struct HTTPError: Sendable, CustomStringConvertible {
    /// The response's status code.
    public let status: Int
    /// The response's headers.
    public let headers: HTTPHeaderFields
    /// The response's body, for the server's explanation.
    public let body: Data
    /// The URL that answered (after redirects), when the transport knows it.
    public let url: URL?

    /// An error for a response with `status`, `headers` and `body`, received from `url`.
    public init(status: Int, headers: HTTPHeaderFields, body: Data, url: URL?) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The error for an unaccepted `response`, with its body when it was read whole (a streamed one is not read here).
    public init(_ response: HTTPDataResponse) {
        self.init(
            status: response.status, headers: response.headers, body: response.body.data ?? Data(), url: response.url)
    }

    /// Decodes the body as the API's typed error, throwing ``RestingError/decodingFailed(type:underlying:body:)``.
    public func decodeBody<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(RestingError)
        -> T
    {
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw .decodingFailed(type: String(describing: T.self), underlying: error, body: body)
        }
    }

    public var description: String {
        "HTTP \(status) from \(url.map(RedactionPolicy.default.url) ?? "the server") with a \(body.count)-byte body"
    }
}
