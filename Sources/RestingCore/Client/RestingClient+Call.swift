#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingClient {
    /// Calls `endpoint` and returns its decoded body: ``send(_:)->RestingResponse<ResponseType>`` for the common call, which needs no
    /// ``RestingRequest``.
    ///
    /// ```swift
    /// enum Kinto {
    ///     static func collection(bucket: String, id: String) -> Endpoint<Nothing, Collection> {
    ///         Endpoint(.get, "/buckets/\(bucket)/collections/\(id)").unwrapping("data")
    ///     }
    /// }
    /// let collection = try await client.call(Kinto.collection(bucket: "blog", id: "articles"))
    /// ```
    ///
    /// `query` is sent after what the endpoint encodes, `headers` replace the providers' and the endpoint's of the
    /// same name. A call that needs more — attributes, a timeout, path variables, preconditions, the status and
    /// headers of the answer — is a ``RestingRequest`` sent with ``send(_:)->RestingResponse<ResponseType>`` or ``perform(_:)``.
    public func call<ResponseType>(
        _ endpoint: Endpoint<Nothing, ResponseType>, query: [URLQueryItem] = [], headers: HTTPHeaderFields = [:]
    ) async throws -> ResponseType {
        try await send(RestingRequest(endpoint: endpoint, headers: headers, queryItems: query)).body
    }

    /// Calls `endpoint` with `body` and returns the decoded answer.
    ///
    /// ```swift
    /// let created = try await client.call(Kinto.createRecord(bucket: "blog", collection: "articles"), body: draft)
    /// ```
    public func call<RequestType, ResponseType>(
        _ endpoint: Endpoint<RequestType, ResponseType>, body: RequestType, query: [URLQueryItem] = [],
        headers: HTTPHeaderFields = [:]
    ) async throws -> ResponseType {
        try await send(RestingRequest(endpoint: endpoint, body: body, headers: headers, queryItems: query)).body
    }

    /// Calls an endpoint that answers ``Nothing``: it returns once the call succeeded, with no result to discard.
    ///
    /// ```swift
    /// try await client.call(Kinto.deleteRecord(bucket: "blog", collection: "articles", id: id))
    /// ```
    public func call(
        _ endpoint: Endpoint<Nothing, Nothing>, query: [URLQueryItem] = [], headers: HTTPHeaderFields = [:]
    ) async throws {
        _ = try await send(RestingRequest(endpoint: endpoint, headers: headers, queryItems: query))
    }

    /// Calls an endpoint that answers ``Nothing`` with `body`: it returns once the call succeeded.
    public func call<RequestType>(
        _ endpoint: Endpoint<RequestType, Nothing>, body: RequestType, query: [URLQueryItem] = [],
        headers: HTTPHeaderFields = [:]
    ) async throws {
        _ = try await send(RestingRequest(endpoint: endpoint, body: body, headers: headers, queryItems: query))
    }
}
