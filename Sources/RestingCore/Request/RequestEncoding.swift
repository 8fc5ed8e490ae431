/// How an endpoint's request body is sent.
public enum RequestEncoding: Sendable, Hashable {
    /// The body's fields become URL query parameters (through ``URLQueryEncoder``); nothing is sent as body.
    case query
    /// The body as `application/json`, through the converter's `JSONEncoder`.
    case json
    /// The body's fields as `application/x-www-form-urlencoded`, through the same encoder as `.query`.
    case formURLEncoded
    /// The body's fields as `multipart/form-data`, through the converter's
    /// ``/RestingMultipart/MultipartFormDataEncoder``; ``/RestingMultipart/MultipartFile`` fields stream from disk.
    case multipartFormData
    /// The body is `Data` (or a `String`, sent as UTF-8, or a file `URL`, streamed from disk) and is sent as it
    /// is, with the given content type.
    case raw(contentType: String)
}
