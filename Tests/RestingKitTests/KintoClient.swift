// The worked example of the guide "A whole API's client" (Documentation/RestingCore.docc/WholeAPIClient.md): a client
// for Kinto's API (served by Tests/StorageServer/storage_server.py), written with endpoint functions: accounts and
// permissions, generic records with tombstones, conditional writes, merge patches, read-modify-write, batches,
// pages, changes since a version, polling and back-off. The guide shows it word for word and states its line count
// (both checked by the tests); KintoClientTests runs it on both transports.
// snippet: kinto-client
import Foundation
import RestingKit

/// The API's error body: `{"errno": 114, "code": 412, "message": "Resource was modified meanwhile"}`.
struct KintoError: HTTPErrorBody {
    let errno: Int
    let code: Int
    let message: String
    var response: HTTPError?
}

/// Who may read and who may write an object: principals such as `account:alice` or `system.Authenticated`.
struct Permissions: Codable, Sendable, Equatable {
    var read: [String]?
    var write: [String]?
}

/// A record: the app's fields and the API's metadata — or, once deleted, a tombstone without fields.
struct Record<Fields: Codable & Sendable>: Decodable, Sendable {
    let id: String
    let lastModified: Int
    let fields: Fields?
    /// The version this record is, as a precondition: a write with it fails if someone wrote since.
    var etag: String { "\"\(lastModified)\"" }

    private enum Metadata: CodingKey { case id, lastModified, deleted }
    init(from decoder: any Decoder) throws {
        let metadata = try decoder.container(keyedBy: Metadata.self)
        id = try metadata.decode(String.self, forKey: .id)
        lastModified = try metadata.decode(Int.self, forKey: .lastModified)
        let deleted = try metadata.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        fields = deleted ? nil : try Fields(from: decoder)
    }
}

/// Writes sent in one request; the API answers with the status of each.
struct Batch<Fields: Encodable & Sendable>: Encodable, Sendable {
    struct Write: Encodable, Sendable {
        var method: String
        var path: String
        var body: [String: Fields]?
    }
    var requests: [Write]
}
struct Outcome: Decodable, Sendable { let status: Int }

/// The API's routes, each a function of its path's parameters.
enum Kinto {
    static func account(_ user: String) -> Endpoint<[String: String], Nothing> {
        Endpoint(.put, "/v1/accounts/\(user)", encoding: .json).wrapping("data")
    }
    static func bucket(_ id: String) -> Endpoint<Permissions, Nothing> {
        Endpoint(.put, "/v1/buckets/\(id)", encoding: .json).wrapping("permissions")
    }
    static func collection(_ bucket: String, _ id: String) -> Endpoint<Permissions, Nothing> {
        Endpoint(.put, "/v1/buckets/\(bucket)/collections/\(id)", encoding: .json).wrapping("permissions")
    }
    static func records<Fields>(_ bucket: String, _ collection: String) -> Endpoint<Nothing, [Record<Fields>]> {
        Endpoint(.get, "/v1/buckets/\(bucket)/collections/\(collection)/records").unwrapping("data")
    }
    static func create<Fields>(_ bucket: String, _ collection: String) -> Endpoint<Fields, Record<Fields>> {
        Endpoint(.post, "/v1/buckets/\(bucket)/collections/\(collection)/records", encoding: .json)
            .wrapping("data").unwrapping("data")
    }
    static func record<Fields>(_ bucket: String, _ collection: String, _ id: String) -> Endpoint<
        Nothing, Record<Fields>
    > {
        Endpoint(.get, "/v1/buckets/\(bucket)/collections/\(collection)/records/\(id)").unwrapping("data")
    }
    static func replace<Fields>(_ bucket: String, _ collection: String, _ id: String) -> Endpoint<
        Fields, Record<Fields>
    > {
        Endpoint(.put, "/v1/buckets/\(bucket)/collections/\(collection)/records/\(id)", encoding: .json)
            .wrapping("data").unwrapping("data")
    }
    static func patch<Fields>(_ bucket: String, _ collection: String, _ id: String) -> Endpoint<
        JSONValue, Record<Fields>
    > {
        Endpoint(.patch, "/v1/buckets/\(bucket)/collections/\(collection)/records/\(id)", encoding: .json)
            .contentType("application/merge-patch+json").wrapping("data").unwrapping("data")
    }
    static func delete<Fields>(_ bucket: String, _ collection: String, _ id: String) -> Endpoint<
        Nothing, Record<Fields>
    > {
        Endpoint(.delete, "/v1/buckets/\(bucket)/collections/\(collection)/records/\(id)").unwrapping("data")
    }
    static func share(_ bucket: String, _ collection: String, _ id: String) -> Endpoint<Permissions, Permissions> {
        Endpoint(.patch, "/v1/buckets/\(bucket)/collections/\(collection)/records/\(id)", encoding: .json)
            .wrapping("permissions").unwrapping("permissions")
    }
    static func batch<Fields>() -> Endpoint<Batch<Fields>, [Outcome]> {
        Endpoint(.post, "/v1/batch", encoding: .json).unwrapping("responses")
    }
}

extension RestingClient {
    /// A client of the API at `baseUrl`, as `user` when given: the API's errors typed, its keys in snake case, and
    /// its `Backoff` header honoured on every call.
    static func kinto(
        _ baseUrl: String, transport: any HTTPClient, user: String? = nil, password: String = "",
        clock: any InterceptorClock = SystemClock()
    ) -> RestingClient {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let backoff = RateLimitInterceptor(
            limit: .init(requests: 100, per: .seconds(1)), maximumWait: .seconds(3600), backoffHeaders: ["Backoff"],
            clock: clock)
        let login = user.map { [AuthInterceptor.basic(username: $0, password: password)] } ?? []
        return RestingClient(
            baseUrl: baseUrl, decoder: decoder, httpClient: transport, interceptors: login + [backoff],
            errorBody: KintoError.self)
    }
}

/// The records of one collection, as the client's account sees them.
struct Records<Fields: Codable & Sendable>: Sendable {
    let client: RestingClient
    let bucket: String, collection: String

    /// Every record, page by page as the API announces them in `Next-Page`; `since` a version, only what changed
    /// after it, a tombstone for each deletion.
    func all(since version: String? = nil, pageSize: Int = 100) -> some AsyncSequence<Record<Fields>, any Error> {
        var query = [URLQueryItem(name: "_limit", value: "\(pageSize)")]
        if let version { query.append(URLQueryItem(name: "_since", value: version)) }
        return client.pages(
            of: Kinto.records(bucket, collection), queryItems: query, pagination: .nextPageHeader("Next-Page")
        )
        .items
    }

    /// The whole collection as it is now, with its version (`etagValue`).
    func snapshot() async throws -> RestingResponse<[Record<Fields>]> {
        try await client.send(RestingRequest(endpoint: Kinto.records(bucket, collection)))
    }

    func add(_ fields: Fields) async throws -> Record<Fields> {
        try await client.call(Kinto.create(bucket, collection), body: fields)
    }

    func get(_ id: String) async throws -> Record<Fields> {
        try await client.call(Kinto.record(bucket, collection, id))
    }

    /// Applies a JSON merge patch, unless the record changed since `version` (a `KintoError` 412).
    func patch(_ id: String, _ changes: JSONValue, ifStill version: Record<Fields>? = nil) async throws
        -> Record<Fields>
    {
        try await client.call(
            Kinto.patch(bucket, collection, id), body: changes, headers: version.map { ["If-Match": $0.etag] } ?? [:])
    }

    /// Reads the record, changes it and writes it back if no one wrote in between — else again, up to `attempts`
    /// times: optimistic concurrency's read-modify-write.
    func modify(_ id: String, attempts: Int = 5, _ change: (inout Fields) -> Void) async throws -> Record<Fields> {
        var attempt = 1
        while true {
            let current = try await get(id)
            guard var fields = current.fields else { return current }
            change(&fields)
            do {
                return try await client.call(
                    Kinto.replace(bucket, collection, id), body: fields, headers: ["If-Match": current.etag])
            } catch let conflict as KintoError where conflict.code == 412 && attempt < attempts {
                attempt += 1
            }
        }
    }

    /// Deletes the record; its tombstone.
    func delete(_ id: String) async throws -> Record<Fields> {
        try await client.call(Kinto.delete(bucket, collection, id))
    }

    /// Lets `principals` read the record besides its writers; its permissions as they are now.
    func share(_ id: String, with principals: [String]) async throws -> Permissions {
        try await client.call(Kinto.share(bucket, collection, id), body: Permissions(read: principals))
    }

    /// Adds `records` and deletes `ids` in one request; the status of each.
    func batch(adding records: [Fields], deleting ids: [String]) async throws -> [Int] {
        let path = "/buckets/\(bucket)/collections/\(collection)/records"
        let writes =
            records.map { Batch.Write(method: "POST", path: path, body: ["data": $0]) }
            + ids.map { Batch.Write(method: "DELETE", path: path + "/" + $0) }
        return try await client.call(Kinto.batch(), body: Batch(requests: writes)).map(\.status)
    }

    /// What changes after `snapshot`, each time something does, as often as `interval` and the API's `Backoff` let.
    func changes(
        after snapshot: RestingResponse<[Record<Fields>]>, every interval: Duration,
        clock: any InterceptorClock = SystemClock()
    ) -> some AsyncSequence<[Record<Fields>], any Error> {
        let schedule = PollingSchedule(every: interval, clock: clock).honouring(secondsIn: "Backoff")
        return client.poll(
            RestingRequest(endpoint: Kinto.records(bucket, collection)), schedule: schedule, startingAt: snapshot
        ) { request, last in
            var next = request
            next.queryItems = [URLQueryItem(name: "_since", value: last.etagValue)]
            return next
        }.map(\.body)
    }
}
// end snippet
