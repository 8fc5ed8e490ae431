#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One operation of an API, described once: its method, its path template and how its body is encoded,
/// typed by what it sends and what it returns.
///
/// ```swift
/// let getPost = Endpoint<Nothing, Post>(.get, "/posts/{{post_id}}")
/// let createPost = Endpoint<PostCreateModel, Post>(.post, "/posts", encoding: .json)
/// let maybePost = Endpoint<Nothing, Post?>(.get, "/drafts/latest")  // nil for an empty body
/// ```
///
/// The response type decides how the body is read: a `Decodable` is decoded (an empty body is a
/// ``RestingError/decodingFailed(type:underlying:body:)``), an optional is `nil` exactly when the body is empty,
/// ``Nothing`` ignores the body, and `Data` returns it as it is.
///
/// The path may be relative to the client's base URL, or an absolute `http(s)://` URL that replaces it; see
/// ``PathTemplate`` for variables. It is parsed once, here; a malformed template fails every request made
/// from it with ``RestingError/invalidPathTemplate(template:reason:)``.
///
/// What the endpoint means beyond its path is said on it, once, with modifiers — headers and a content type of its
/// own, statuses it accepts besides the client's, an envelope its value sits in, the API's error type:
///
/// ```swift
/// let patchRecord = Endpoint<JSONValue, Record>(.patch, "/records/{{id}}", encoding: .json)
///     .contentType("application/merge-patch+json")
///     .unwrapping("data")
///     .decodingErrors(as: StorageError.self)
/// let pollRecords = Endpoint<Nothing, [Record]?>(.get, "/records")
///     .unwrapping("data")
///     .accepting(304)  // a 304 Not Modified reads as nil
/// ```
public struct Endpoint<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: Sendable {
    /// The HTTP method.
    public let method: RequestMethod
    /// How the request body is encoded: a query, JSON, a form or a multipart form.
    public let encoding: RequestEncoding
    /// The template as written.
    public let path: String
    package let template: Result<PathTemplate, RestingError>
    /// Whether values were interpolated into the path (``EndpointPath``): its URL is then never cached.
    private(set) var pathHoldsValues: Bool
    let responseReading = ResponseReading(ResponseType.self)
    /// Options every request of this endpoint carries to the interceptors; a request's own win.
    public var attributes: RequestAttributes
    /// Decodes this endpoint's responses in place of the client's decoder (an API whose endpoints disagree
    /// on dates or key styles); `nil` uses the client's.
    public var decoder: JSONDecoder?

    // The getters below are always inlined: a call of one takes the endpoint's type metadata, which code generic over
    // the endpoint's types (the whole pipeline) looks up in the runtime's cache first, about 0.1 µs each time.

    /// Headers every request of this endpoint carries, in order. They replace the header provider's of the same name,
    /// and a request's own replace them; a `Content-Type` here beats the encoding's (but not a multipart body's, whose
    /// type names its boundary).
    public var headers: HTTPHeaderFields {
        @inline(__always) get { refinements?.fields.headers ?? HTTPHeaderFields() }
        set { refine { $0.headers = newValue } }
    }
    /// Statuses this endpoint's calls accept besides the client's ``RestingClient/acceptedStatusCodes`` — a `304`
    /// for a conditional read whose response type is optional (it then reads as `nil`).
    public var additionalAcceptedStatusCodes: Set<Int> {
        @inline(__always) get { refinements?.fields.additionalAcceptedStatusCodes ?? [] }
        set { refine { $0.additionalAcceptedStatusCodes = newValue } }
    }
    /// Where the value sits in the body, when the API wraps it (``unwrapping(_:)``).
    var envelope: EnvelopeReading<ResponseType>? {
        @inline(__always) get { refinements?.fields.envelope }
    }
    /// The API's error type for this endpoint, in place of the client's (``decodingErrors(as:)``).
    var errorBody: ErrorBodyDecoding? {
        @inline(__always) get { refinements?.fields.errorBody }
    }
    /// The member names a JSON body is sent inside (``wrapping(_:)``).
    var requestEnvelope: [String]? {
        @inline(__always) get { refinements?.fields.requestEnvelope }
    }

    /// What the modifiers add, behind one reference that most endpoints leave `nil`: an endpoint is copied at several
    /// steps of every call, and each reference it holds costs a retain and a release per copy.
    private var refinements: CopyOnWriteBox<Refinements>?

    private struct Refinements: Sendable {
        var headers = HTTPHeaderFields()
        var additionalAcceptedStatusCodes: Set<Int> = []
        var envelope: EnvelopeReading<ResponseType>?
        var errorBody: ErrorBodyDecoding?
        var requestEnvelope: [String]?
    }

    private mutating func refine(_ change: (inout Refinements) -> Void) {
        var box = refinements ?? CopyOnWriteBox(Refinements())
        refinements = nil  // so that a box only this endpoint held is written in place
        change(&CopyOnWriteBox.unique(&box).fields)
        refinements = box
    }

    /// An endpoint for `method` on the path template `path`, with its body encoded as `encoding`.
    ///
    /// A path built at run time; a literal, interpolated or not, is an ``EndpointPath``, whose values are encoded.
    @_disfavoredOverload
    public init(
        _ method: RequestMethod, _ path: String, encoding: RequestEncoding, headers: HTTPHeaderFields = [:],
        attributes: RequestAttributes = RequestAttributes(), decoder: JSONDecoder? = nil
    ) {
        self.init(
            method, EndpointPath(stringLiteral: path), encoding: encoding, headers: headers, attributes: attributes,
            decoder: decoder)
    }

    /// An endpoint for `method` on `path` — a template, values interpolated into it, or both — with its body encoded
    /// as `encoding`.
    ///
    /// ```swift
    /// static func patchRecord(_ id: String) -> Endpoint<JSONValue, Record> {
    ///     Endpoint(.patch, "/records/\(id)", encoding: .json).contentType("application/merge-patch+json")
    /// }
    /// ```
    public init(
        _ method: RequestMethod, _ path: EndpointPath, encoding: RequestEncoding, headers: HTTPHeaderFields = [:],
        attributes: RequestAttributes = RequestAttributes(), decoder: JSONDecoder? = nil
    ) {
        self.method = method
        self.path = path.template
        pathHoldsValues = path.holdsValues
        self.encoding = encoding
        self.attributes = attributes
        self.decoder = decoder
        template =
            if let failure = path.failure { .failure(failure) } else {
                Result { () throws(RestingError) in try PathTemplate(path.template) }
            }
        if !headers.isEmpty { self.headers = headers }
    }

    /// This endpoint with its path taken as holding values (a replayed request's), so that its URL is never cached.
    package func holdingValues() -> Self {
        var endpoint = self
        endpoint.pathHoldsValues = true
        return endpoint
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

    /// This endpoint with the app's own attribute `key` set (a key path cannot name a subscript by a metatype):
    ///
    /// ```swift
    /// enum Tenant: RequestAttributeKey { static let defaultValue: String? = nil }
    /// let listInvoices = Endpoint<Nothing, [Invoice]>(.get, "/invoices").setting(Tenant.self, "acme")
    /// ```
    public func setting<Key: RequestAttributeKey>(_ key: Key.Type, _ value: Key.Value) -> Self {
        var endpoint = self
        endpoint.attributes[key] = value
        return endpoint
    }

    /// This endpoint with the header `name` set to `value` for every request (replacing any it had).
    public func header(_ name: String, _ value: String) -> Self {
        var endpoint = self
        endpoint.headers.replaceOrAdd(name: name, value: value)
        return endpoint
    }

    /// This endpoint sending its body as `contentType` rather than the encoding's own type — JSON sent as
    /// `application/merge-patch+json`, say.
    public func contentType(_ contentType: String) -> Self { header("Content-Type", contentType) }

    /// This endpoint also accepting `statusCodes` as answers (decoded as the response type), besides the client's.
    public func accepting(_ statusCodes: Int...) -> Self {
        var endpoint = self
        endpoint.additionalAcceptedStatusCodes.formUnion(statusCodes)
        return endpoint
    }

    /// This endpoint reading its value at `keyPath` inside the body: `"data"` for `{"data": …}`, member names joined
    /// by dots for a deeper one (`"result.items"`), as they read after the decoder's key strategy. An empty body
    /// still reads as an optional's `nil`; a streamed response type is not unwrapped.
    public func unwrapping(_ keyPath: String) -> Self {
        var endpoint = self
        endpoint.refine { $0.envelope = EnvelopeReading(keyPath: keyPath) }
        return endpoint
    }

    /// This endpoint sending its JSON body inside the object the API wraps values in, at `keyPath`: `"data"` sends
    /// `{"data": …}`, members joined by dots a deeper one (`"payload.item"`) — the counterpart of ``unwrapping(_:)``
    /// for what is sent, so that the body type is the value itself.
    ///
    /// ```swift
    /// static func createRecord(bucket: String) -> Endpoint<Record, Record> {
    ///     Endpoint(.post, "/buckets/\(bucket)/records", encoding: .json).wrapping("data").unwrapping("data")
    /// }
    /// ```
    ///
    /// The names are sent as written (the encoder's key strategy applies to the value's own keys only). A body not
    /// encoded as JSON, or a key path with an empty member (`""`, `"a..b"`), fails the call with
    /// ``RestingError/encodingFailed(reason:)``, nothing sent.
    public func wrapping(_ keyPath: String) -> Self {
        var endpoint = self
        endpoint.refine {
            $0.requestEnvelope = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
        return endpoint
    }

    /// This endpoint decoding its body as `envelope` and answering with what `value` takes out of it:
    ///
    /// ```swift
    /// struct Wrapped<Value: Decodable & Sendable>: Decodable, Sendable { let data: Value }
    /// let getRecord = Endpoint<Nothing, Record>(.get, "/records/{{id}}").unwrapping(Wrapped<Record>.self, \.data)
    /// ```
    public func unwrapping<Envelope: Decodable & Sendable>(
        _ envelope: Envelope.Type, _ value: @escaping @Sendable (Envelope) -> ResponseType
    ) -> Self {
        var endpoint = self
        endpoint.refine { $0.envelope = EnvelopeReading(envelope, value) }
        return endpoint
    }

    /// This endpoint decoding the body of a response it does not accept as the API's `errorType`, and throwing that
    /// (in place of the client's ``RestingClient/init(baseUrl:decoder:httpClient:requestConverter:interceptors:networkInterceptors:acceptedStatusCodes:errorBody:concurrency:maximumRedirects:eventListener:)``
    /// `errorBody`); a body that is not one still throws ``RestingError/httpError(_:)``. See ``HTTPErrorBody``.
    public func decodingErrors<ErrorBody: Error & Decodable & Sendable>(as errorType: ErrorBody.Type) -> Self {
        var endpoint = self
        endpoint.refine { $0.errorBody = ErrorBodyDecoding(errorType) }
        return endpoint
    }
}

extension Endpoint where RequestType == Nothing {
    /// An endpoint that sends no body, for `method` on the path template `path`; its request's query items are
    /// sent as they are.
    ///
    /// ```swift
    /// let getPost = Endpoint<Nothing, Post>(.get, "/posts/{{post_id}}")
    /// ```
    @_disfavoredOverload
    public init(
        _ method: RequestMethod, _ path: String, headers: HTTPHeaderFields = [:],
        attributes: RequestAttributes = RequestAttributes(), decoder: JSONDecoder? = nil
    ) {
        self.init(
            method, EndpointPath(stringLiteral: path), encoding: .query, headers: headers, attributes: attributes,
            decoder: decoder)
    }

    /// An endpoint that sends no body, for `method` on `path` — a template, values interpolated into it, or both.
    ///
    /// ```swift
    /// static func post(_ id: Int) -> Endpoint<Nothing, Post> { Endpoint(.get, "/posts/\(id)") }
    /// ```
    public init(
        _ method: RequestMethod, _ path: EndpointPath, headers: HTTPHeaderFields = [:],
        attributes: RequestAttributes = RequestAttributes(), decoder: JSONDecoder? = nil
    ) {
        self.init(method, path, encoding: .query, headers: headers, attributes: attributes, decoder: decoder)
    }
}
