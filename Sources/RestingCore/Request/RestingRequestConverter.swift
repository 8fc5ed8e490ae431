#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The standard ``RequestConverter``: expands the path template, adds the providers' headers and path
/// variables (the endpoint's headers win over the provider's, the request's own values over both), and encodes the
/// body as the endpoint says.
///
/// ```swift
/// let headerProvider = RestingHeaderProvider(providers: ["device-id": { deviceId }])
/// let configuration = RestingRequestConverter.Configuration(contextPath: "/v2", headerProvider: headerProvider)
/// let converter = RestingRequestConverter(configuration: configuration)
/// ```
///
/// The result is `base URL + context path + expanded path`, with the base URL's own path kept
/// (`https://h/api` + `/posts` is `https://h/api/posts`); an endpoint path that is an absolute `http(s)` URL
/// is used as it is. A `Content-Type` set by the request, the endpoint or a provider is never replaced, except on
/// `.multipartFormData` endpoints, whose `Content-Type` carries the body's boundary.
public struct RestingRequestConverter: RequestConverter {
    /// What the converter adds and how it encodes.
    public struct Configuration: Sendable {
        /// Encodes `.json` bodies; by default with sorted keys.
        public var jsonEncoder: JSONEncoder
        /// Used for `.query` and `.formURLEncoded` endpoints.
        public var queryEncoder: URLQueryEncoder
        /// Used for `.multipartFormData` endpoints.
        public var multipartFormDataEncoder: MultipartFormDataEncoder
        /// A path inserted between the base URL and every endpoint path, such as `/api/v2`.
        public var contextPath: String
        /// Headers added to every request that does not set them itself.
        public var headerProvider: RestingHeaderProvider
        /// Path variables for every request that does not set them itself.
        public var pathVariableProvider: RestingPathVariableProvider

        /// A `JSONEncoder` with sorted keys: Foundation's key order otherwise changes from one encoding to the next.
        public static func stableJSONEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }

        /// A configuration; every part has a default.
        ///
        /// - Parameters:
        ///   - jsonEncoder: Encodes `.json` bodies; by default sorts keys, so that a value's body is the same bytes on
        ///     every run.
        ///   - queryEncoder: Encodes `.query` and `.formURLEncoded` bodies.
        ///   - multipartFormDataEncoder: Encodes `.multipartFormData` bodies.
        ///   - contextPath: A path inserted between the base URL and every endpoint path.
        ///   - headerProvider: Headers added to every request that does not set them itself.
        ///   - pathVariableProvider: Path variables for every request that does not set them itself.
        public init(
            jsonEncoder: JSONEncoder = Configuration.stableJSONEncoder(),
            queryEncoder: URLQueryEncoder = URLQueryEncoder(),
            multipartFormDataEncoder: MultipartFormDataEncoder = MultipartFormDataEncoder(),
            contextPath: String = "", headerProvider: RestingHeaderProvider = RestingHeaderProvider(),
            pathVariableProvider: RestingPathVariableProvider = RestingPathVariableProvider()
        ) {
            self.jsonEncoder = jsonEncoder
            self.queryEncoder = queryEncoder
            self.multipartFormDataEncoder = multipartFormDataEncoder
            self.contextPath = contextPath
            self.headerProvider = headerProvider
            self.pathVariableProvider = pathVariableProvider
        }
    }

    /// What this converter adds and how it encodes.
    public let configuration: Configuration
    let literalURLs = LiteralURLCache()

    /// A converter with `configuration`.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Expands the path, adds the providers' values and encodes the body, as described above.
    public func toHTTPRequest<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String
    ) throws(RestingError) -> HTTPRequest {
        // The endpoint's fields are read where they are, one by one: a copy of the whole endpoint in code generic over
        // its types goes through the runtime's metadata, looked up first (about 0.1 µs each time).
        let (method, encoding) = (request.endpoint.method, request.endpoint.encoding)
        let encoded = try EncodedBody(
            request.body, encoding: encoding, envelope: request.endpoint.requestEnvelope, configuration: configuration)
        guard method.allowsRequestBody || encoded.body.isEmpty else { throw .bodyNotAllowed(method: method) }
        let address = try makeURL(request, baseUrl: baseUrl, queryItems: encoded.queryItems + request.queryItems)

        var headers = configuration.headerProvider.headers()
        // The endpoint's, then the request's: the more particular wins.
        for field in request.endpoint.headers { Self.set(field, in: &headers) }
        for field in request.headers { Self.set(field, in: &headers) }
        if let contentType = encoded.contentType {
            // A multipart type names the body's own boundary, so no other Content-Type can describe it.
            if encoding == .multipartFormData {
                headers.replaceOrAdd(name: "Content-Type", value: contentType)
            } else if !headers.contains("Content-Type") {
                headers.add(name: "Content-Type", value: contentType)
            }
        }
        if request.endpoint.responseReading.expectsJSON, !headers.contains("Accept") {
            headers.add(name: "Accept", value: "application/json")
        }
        var converted = HTTPRequest(
            method: method, url: address.url, headers: headers, body: encoded.body, timeout: request.timeout,
            attributes: request.endpoint.attributes.merging(request.attributes))
        converted.originKey = address.originKey
        return converted
    }

    /// The request's URL, and its origin's key when known without reading the URL again: a literal path's, kept
    /// with its URL, or a relative path's, which is its base URL's (the base ends in its authority or a path, and
    /// the path follows a slash).
    private func makeURL<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String, queryItems: [URLQueryItem]
    ) throws(RestingError) -> LiteralURLCache.Entry {
        let template = try request.endpoint.template.get()
        // A path with interpolated values is one call's, like its path variables: never kept past the call.
        if queryItems.isEmpty, !request.endpoint.pathHoldsValues, let path = template.literalPath {
            return try literalURL(path, on: baseUrl)
        }
        // The provider's closures run only when the request lacks a variable the template needs.
        var provided: [String: any PathVariableValue]?
        let path = try template.render { name in
            if let value = request.pathVariables[name] { return value.description }
            if provided == nil { provided = configuration.pathVariableProvider.variables() }
            return provided?[name]?.description
        }
        let url = try makeURL(path: path, baseUrl: baseUrl, queryItems: queryItems)
        let originKey = path.httpSchemeLength == nil ? literalURLs.originKey(of: url, onBase: baseUrl) : nil
        return LiteralURLCache.Entry(url: url, originKey: originKey)
    }

    private func literalURL(_ path: String, on baseUrl: String) throws(RestingError) -> LiteralURLCache.Entry {
        try literalURLs.url(baseUrl: baseUrl, path: path) { () throws(RestingError) in
            try makeURL(path: path, baseUrl: baseUrl, queryItems: [])
        }
    }

    /// The expanded `path` on `baseUrl` (or alone, when it is an absolute URL), with `queryItems`.
    private func makeURL(path: String, baseUrl: String, queryItems: [URLQueryItem]) throws(RestingError) -> URL {
        var address: String
        if path.httpSchemeLength != nil {
            address = path
        } else {
            // A cheap shape check on every request; `URL(string:)` below validates the whole address.
            guard let schemeLength = baseUrl.httpSchemeLength, baseUrl.utf8.count > schemeLength else {
                throw .invalidURL(
                    RedactionPolicy.default.address(baseUrl), reason: "the base URL needs an http(s) scheme and a host")
            }
            address = Self.joined(Self.joined(Self.trimmingTrailingSlash(baseUrl), configuration.contextPath), path)
        }
        if !queryItems.isEmpty {
            address += (address.contains("?") ? "&" : "?") + URLQueryEncoder.percentEncoded(queryItems)
        }
        guard let url = URL(string: address), url.host != nil else {
            throw .invalidURL(RedactionPolicy.default.address(address), reason: "not a valid URL")
        }
        return url
    }

    /// `field` in place of `headers`' of its name — with its mark and its origin: a credential the caller bound to
    /// another site stays that site's, for the boundary.
    private static func set(_ field: HTTPHeaderFields.Field, in headers: inout HTTPHeaderFields) {
        headers.replaceOrAdd(name: field.name, value: field.value, sensitive: field.isSensitive, origin: field.origin)
    }

    private static func trimmingTrailingSlash(_ text: String) -> String {
        text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// `prefix` + `/` + `suffix`, with exactly one slash between them (none when `suffix` is empty).
    private static func joined(_ prefix: String, _ suffix: String) -> String {
        let trimmed = suffix.drop { $0 == "/" }
        guard !trimmed.isEmpty || suffix.hasPrefix("/") else { return prefix }
        return trimmingTrailingSlash(prefix) + "/" + trimmed
    }
}

/// A request body encoded as an endpoint says: bytes and their content type, or query parameters.
package struct EncodedBody {
    package var body: RequestBody = .empty
    package var contentType: String?
    package var queryItems: [URLQueryItem] = []

    /// `value` encoded as `endpoint` says, inside its envelope (``Endpoint/wrapping(_:)``) where it has one.
    package init<Body: Encodable, Response>(
        _ value: Body, for endpoint: Endpoint<Body, Response>, configuration: RestingRequestConverter.Configuration
    ) throws(RestingError) {
        try self.init(
            value, encoding: endpoint.encoding, envelope: endpoint.requestEnvelope, configuration: configuration)
    }

    /// `value` encoded as `encoding` says, inside `envelope`'s members when there are some.
    package init<Body: Encodable>(
        _ value: Body, encoding: RequestEncoding, envelope: [String]?,
        configuration: RestingRequestConverter.Configuration
    ) throws(RestingError) {
        guard let keys = envelope, !(value is Nothing) else {
            try self.init(value, encoding: encoding, configuration: configuration)
            return
        }
        guard case .json = encoding else {
            throw .encodingFailed(reason: "only a JSON body can be sent inside an envelope, not a \(encoding) one")
        }
        guard !keys.contains(where: \.isEmpty) else {
            throw .encodingFailed(reason: "the envelope key path '\(keys.joined(separator: "."))' has an empty member")
        }
        try self.init(value, encoding: .json, configuration: configuration)
        if case .bytes(let inner) = body.source { body = .bytes(RequestEnvelope.wrap(inner, in: keys)) }
    }

    package init<Body: Encodable>(
        _ value: Body, encoding: RequestEncoding, configuration: RestingRequestConverter.Configuration
    ) throws(RestingError) {
        guard !(value is Nothing) else { return }
        do {
            switch encoding {
            case .query:
                queryItems = try configuration.queryEncoder.encode(value)
            case .json:
                body = .bytes(try configuration.jsonEncoder.encode(value))
                contentType = "application/json"
            case .formURLEncoded:
                let form = URLQueryEncoder.percentEncoded(try configuration.queryEncoder.encode(value))
                body = .bytes(Data(form.utf8))
                contentType = "application/x-www-form-urlencoded; charset=utf-8"
            case .multipartFormData:
                let form = try configuration.multipartFormDataEncoder.encode(value)
                body = .multipart(form)
                contentType = form.contentType
            case .raw(let rawContentType):
                switch value {
                case let data as Data: body = .bytes(data)
                case let text as String: body = .bytes(Data(text.utf8))
                case let file as URL where file.isFileURL: body = .file(file)
                case let given as RequestBody: body = given
                default:
                    throw RestingError.encodingFailed(
                        reason: "a .raw endpoint takes a Data, String, file URL or RequestBody, not \(Body.self)")
                }
                contentType = rawContentType
            }
        } catch let error as RestingError {
            throw error
        } catch MultipartError.fileUnreadable(let url, let reason) {
            throw .bodyUnreadable(reason: "cannot read \(url.path): \(reason)")
        } catch {
            throw .encodingFailed(reason: "\(Body.self) as \(encoding): \(error)")
        }
    }
}
