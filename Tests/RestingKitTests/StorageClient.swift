// The worked example of the guide "A whole API's client" (Documentation/RestingCore.docc/WholeAPIClient.md): a client
// for a JSON storage API (Tests/StorageServer/storage_server.py), written as a newcomer would with the endpoint
// modifiers, the API's error type, header pagination and polling. The guide shows it word for word and states its
// line count (both checked by the tests); StorageClientTests runs it on both transports.
// snippet: storage-client
import Foundation
import RestingKit

/// The API's error body: `{"errno": 114, "code": 412, "message": "Resource was modified meanwhile"}`.
struct StorageError: HTTPErrorBody {
    let errno: Int
    let code: Int
    let message: String
    var response: HTTPError?
}

/// A stored note: the API adds `id` and `last_modified` to what it is sent.
struct Note: Codable, Sendable, Equatable {
    var id: String?
    var lastModified: Int?
    var title: String
    var done = false
}

/// A batch of record operations, and what each did.
struct Batch: Encodable, Sendable {
    struct Operation: Encodable, Sendable {
        let method: String
        let path: String
        var body: [String: Note]?
    }
    var requests: [Operation]
}
struct BatchResult: Decodable, Sendable {
    struct Outcome: Decodable, Sendable { let status: Int }
    let responses: [Outcome]
}

/// What every create sends: the API wraps values in `{"data": …}` both ways.
struct Wrapped<Value: Encodable & Sendable>: Encodable, Sendable { let data: Value }

/// The API's operations, described once.
enum StorageAPI {
    static let records = "/v1/buckets/{{bucket}}/collections/{{collection}}/records"
    static let list = Endpoint<Nothing, [Note]>(.get, records).unwrapping("data")
    static let read = Endpoint<Nothing, Note?>(.get, records + "/{{id}}").unwrapping("data").accepting(304)
    static let create = Endpoint<Wrapped<Note>, Note>(.post, records, encoding: .json).unwrapping("data")
    static let patch = Endpoint<JSONValue, Note>(.patch, records + "/{{id}}", encoding: .json)
        .contentType("application/merge-patch+json").unwrapping("data")
    static let delete = Endpoint<Nothing, Nothing>(.delete, records + "/{{id}}")
    static let batch = Endpoint<Batch, BatchResult>(.post, "/v1/batch", encoding: .json)
}

/// The notes of one collection.
struct NotesClient: Sendable {
    let client: RestingClient
    let bucket: String, name: String
    var collection: [String: any PathVariableValue] { ["bucket": bucket, "collection": name] }

    init(baseUrl: String, transport: any HTTPClient, bucket: String, collection: String) {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        client = RestingClient(
            baseUrl: baseUrl, decoder: decoder, httpClient: transport,
            interceptors: [AuthInterceptor.basic(username: "alice", password: "wonderland")],
            errorBody: StorageError.self)
        self.bucket = bucket
        name = collection
    }

    func note(_ id: String) -> [String: any PathVariableValue] { collection.merging(["id": id]) { $1 } }

    /// Every note, page by page as the server announces them in `Next-Page`.
    func all(pageSize: Int = 50) -> some AsyncSequence<Note, any Error> {
        client.pages(
            of: StorageAPI.list, pathVariables: collection,
            queryItems: [URLQueryItem(name: "_limit", value: "\(pageSize)")], pagination: .nextPageHeader("Next-Page")
        ).items
    }

    func add(_ note: Note) async throws -> RestingResponse<Note> {
        try await client.send(
            RestingRequest(endpoint: StorageAPI.create, body: Wrapped(data: note), pathVariables: collection))
    }

    /// The note, or `nil` when it has not changed since `previous`.
    func read(_ id: String, ifChangedSince previous: RestingResponse<Note?>? = nil) async throws
        -> RestingResponse<Note?>
    {
        var request = RestingRequest(endpoint: StorageAPI.read, pathVariables: note(id))
        if let previous { request = request.ifChanged(since: previous) }
        return try await client.send(request)
    }

    /// Applies `changes` (a JSON merge patch) unless someone changed the note since `etag`: a `StorageError` 412.
    func update(_ id: String, _ changes: JSONValue, ifMatch etag: String) async throws -> RestingResponse<Note> {
        try await client.send(
            RestingRequest(endpoint: StorageAPI.patch, body: changes, pathVariables: note(id)).ifMatch(etag))
    }

    func delete(_ id: String) async throws {
        _ = try await client.send(RestingRequest(endpoint: StorageAPI.delete, pathVariables: note(id)))
    }

    /// Creates `notes` and deletes `ids` in one request; the status of each operation.
    func batch(adding notes: [Note], deleting ids: [String]) async throws -> [Int] {
        let path = "/buckets/\(bucket)/collections/\(name)/records"
        let operations =
            notes.map { Batch.Operation(method: "POST", path: path, body: ["data": $0]) }
            + ids.map { Batch.Operation(method: "DELETE", path: path + "/" + $0) }
        let result = try await client.send(
            RestingRequest(endpoint: StorageAPI.batch, body: Batch(requests: operations)))
        return result.body.responses.map(\.status)
    }

    /// The notes changed since the last answer, each time there are some, as the server paces it (`Backoff`).
    func changes(every interval: Duration, clock: any InterceptorClock = SystemClock()) -> some AsyncSequence<
        [Note], any Error
    > {
        let schedule = PollingSchedule(every: interval, clock: clock).honouring(secondsIn: "Backoff")
        return client.poll(RestingRequest(endpoint: StorageAPI.list, pathVariables: collection), schedule: schedule) {
            request, response in
            var next = request
            let newest = response.body.compactMap(\.lastModified).max()
            next.queryItems = newest.map { [URLQueryItem(name: "_since", value: "\($0)")] } ?? request.queryItems
            return next
        }.map(\.body)
    }
}
// end snippet
