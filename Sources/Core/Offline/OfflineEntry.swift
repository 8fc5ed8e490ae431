#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request kept for later, as the app made it — template, path variables, query, its own headers, the
/// encoded body — so that providers and interceptors apply again when it is replayed.
public struct OfflineEntry: Codable, Sendable, Equatable {
    /// Unique and stable; sent as `Idempotency-Key` on replay so that a server can drop a second delivery.
    public let id: String
    public let method: String
    public let pathTemplate: String
    public let pathVariables: [String: String]
    public let queryItems: [[String]]
    /// The request's own headers, minus credentials (the header provider adds fresh ones on replay).
    public let headers: [[String]]
    public let body: Data?
    public let contentType: String?
    public let createdAt: Date

    init<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, configuration: RestingRequestConverter.Configuration,
        redaction: RedactionPolicy
    ) throws(RestingError) {
        let encoded = try EncodedBody(request.body, encoding: request.endpoint.encoding, configuration: configuration)
        id = UUID().uuidString
        method = request.endpoint.method.rawValue
        pathTemplate = request.endpoint.path
        pathVariables = request.pathVariables.mapValues(\.description)
        queryItems = (encoded.queryItems + request.queryItems).map { [$0.name, $0.value ?? ""] }
        headers = request.headers.filter { !redaction.redactsHeader($0.name) }.map { [$0.name, $0.value] }
        body = encoded.body.isEmpty ? nil : try encoded.body.collect()
        contentType = encoded.contentType
        createdAt = Date()
    }

    /// The request to send again.
    func request() -> RestingRequest<Data, Data> {
        var requestHeaders = HTTPHeaders(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        requestHeaders["Idempotency-Key"] = id
        let encoding = RequestEncoding.raw(contentType: contentType ?? "application/octet-stream")
        return RestingRequest(
            endpoint: Endpoint<Data, Data>(HTTPMethod(rawValue: method), pathTemplate, encoding: encoding),
            body: body ?? Data(), headers: requestHeaders, pathVariables: pathVariables,
            queryItems: queryItems.compactMap { $0.count == 2 ? URLQueryItem(name: $0[0], value: $0[1]) : nil })
    }
}
