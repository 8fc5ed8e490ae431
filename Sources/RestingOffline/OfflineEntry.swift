import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request kept for later, as the app made it — template, path variables, query, its own and its endpoint's headers, the
/// encoded body — so that providers and interceptors apply again when it is replayed.
public struct OfflineEntry: Codable, Sendable, Equatable {
    /// Unique and stable; names the entry's files.
    public let id: String
    /// The request method.
    public let method: String
    /// The endpoint's path template, expanded again on replay.
    public let pathTemplate: String
    /// The request's own path variables, as text.
    public let pathVariables: [String: String]
    /// The query items encoded from the body and the request's own, as `[name, value]` pairs (a missing value is
    /// `""`).
    public let queryItems: [[String]]
    /// The request's own headers, minus credentials (the header provider adds fresh ones on replay). Its
    /// `Idempotency-Key` is among them when the call was sent before it was kept (see ``idempotencyKey``).
    public let headers: [[String]]
    /// A body of up to 64 KiB held in memory when it was kept; a larger or file-backed one was streamed into
    /// the store's own file (``bodyFile``).
    public let body: Data?
    /// The name, in the store, of the file holding the body, when it is not ``body``.
    public let bodyFile: String?
    /// The body's `Content-Type`, when the endpoint's encoding set one.
    public let contentType: String?
    /// When the request was kept.
    public let createdAt: Date
    /// The base URL the call was converted against when it was kept: the replay goes to the same API, whatever
    /// the client's base URL is by then. `nil` in entries kept before it was recorded (they use the client's).
    public let baseUrl: String?
    /// The call's ``/RestingCore/PersistentRequestAttributeKey`` values (the endpoint's and the request's), encoded by key
    /// name: a replay means what the call meant. `nil` in entries kept before they were recorded.
    public let attributes: [String: Data]?

    /// Bodies up to this size are kept inside the entry; larger ones stream to a file of their own.
    static let inlineBodyLimit = 64 * 1024

    /// Sent as `Idempotency-Key` on replay, so that a server can drop a second delivery: the key the request carried
    /// when it was first sent (the app's own, or the one
    /// ``RestingCore/RestingClient/perform(_:storingOfflineIn:ifDeliveryUncertain:)`` gave it), else ``id``.
    public var idempotencyKey: String {
        headers.first { $0.count == 2 && $0[0].caseInsensitiveEquals("Idempotency-Key") }?[1] ?? id
    }

    /// The entry for `request`, and the body to stream into ``bodyFile`` when it is too large to keep inline.
    static func make<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String?,
        configuration: RestingRequestConverter.Configuration
    ) throws(RestingError) -> (entry: OfflineEntry, bodyToStore: RequestBody?) {
        // A path that cannot be sent now cannot be kept either: an interpolated value refused leaves the path
        // without it, which would route the replay to its parent.
        _ = try request.endpoint.template.get()
        let encoded = try EncodedBody(request.body, for: request.endpoint, configuration: configuration)
        let id = UUID().uuidString
        var inline: Data?
        var bodyToStore: RequestBody?
        switch encoded.body.source {
        case .empty: break
        case .bytes(let data) where data.count <= inlineBodyLimit: inline = data
        case .sequence:
            throw .bodyUnreadable(reason: "an async sequence's body cannot be kept in the offline queue to send later")
        default: bodyToStore = encoded.body
        }
        let entry = OfflineEntry(
            id: id, method: request.endpoint.method.rawValue, pathTemplate: request.endpoint.path,
            pathVariables: request.pathVariables.mapValues(\.description),
            queryItems: (encoded.queryItems + request.queryItems).map { [$0.name, $0.value ?? ""] },
            headers: ownHeaders(of: request).filter { !$0.carriesCredential }.map { [$0.name, $0.value] },
            body: inline, bodyFile: bodyToStore == nil ? nil : bodyFileName(id: id),
            contentType: encoded.contentType, createdAt: Date(), baseUrl: baseUrl,
            attributes: try request.endpoint.attributes.merging(request.attributes).persistentValues())
        return (entry, bodyToStore)
    }

    /// The endpoint's headers with the request's in place of those of the same name — what the app said, which a
    /// replay must say again (a `Content-Type` of the endpoint's), as the converter would.
    private static func ownHeaders<RequestType, ResponseType>(of request: RestingRequest<RequestType, ResponseType>)
        -> HTTPHeaderFields
    {
        var headers = request.endpoint.headers
        for field in request.headers { headers.remove(name: field.name) }
        for field in request.headers { headers.add(name: field.name, value: field.value, sensitive: field.isSensitive) }
        return headers
    }

    /// The only name an entry's body file may have: a tampered entry cannot name a file outside the store.
    static func bodyFileName(id: String) -> String { id + ".body" }

    /// Whether the entry's names are its own: an id of letters, digits and dashes, and no body file but its own.
    package var namesAreSafe: Bool {
        let isNameCharacter = { (byte: UInt8) in
            byte == 0x2D || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        return !id.isEmpty && id.utf8.allSatisfy(isNameCharacter)
            && (bodyFile == nil || bodyFile == Self.bodyFileName(id: id))
    }

    private init(
        id: String, method: String, pathTemplate: String, pathVariables: [String: String], queryItems: [[String]],
        headers: [[String]], body: Data?, bodyFile: String?, contentType: String?, createdAt: Date,
        baseUrl: String?, attributes: [String: Data]?
    ) {
        self.id = id
        self.method = method
        self.pathTemplate = pathTemplate
        self.pathVariables = pathVariables
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.contentType = contentType
        self.createdAt = createdAt
        self.baseUrl = baseUrl
        self.attributes = attributes
    }

    /// The request to send again, with `body` — the inline bytes, or the URL of the body's file — and the
    /// attributes it was kept with (each decodes when its key is read).
    package func request<Body>(body: Body) -> RestingRequest<Body, Data> {
        var requestHeaders = HTTPHeaderFields(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        requestHeaders["Idempotency-Key"] = idempotencyKey
        let encoding = RequestEncoding.raw(contentType: contentType ?? "application/octet-stream")
        // A replay is one call: its path, which may hold an interpolated value, is never cached.
        let endpoint = Endpoint<Body, Data>(RequestMethod(rawValue: method), pathTemplate, encoding: encoding)
        return RestingRequest(
            endpoint: endpoint.holdingValues(),
            body: body, headers: requestHeaders, pathVariables: pathVariables,
            queryItems: queryItems.compactMap { $0.count == 2 ? URLQueryItem(name: $0[0], value: $0[1]) : nil },
            attributes: RequestAttributes(restoring: attributes ?? [:]))
    }
}
