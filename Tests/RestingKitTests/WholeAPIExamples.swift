import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import Testing

/// The smaller examples of the guide "A whole API's client", run against the storage server.
@Suite("The whole-API guide's examples")
struct WholeAPIExamples {
    let baseUrl: String
    let transport: any HTTPClient
    let name = UUID().uuidString
    var collection: [String: any PathVariableValue] { ["bucket": "examples", "collection": name] }

    init() async throws {
        baseUrl = try await StorageServers.first.value.baseURL
        transport = try EachTransport.curl.client
    }

    @Test("a request carries headers of its own, which replace the endpoint's and the providers'")
    func perRequestHeaders() async throws {
        let seen = Locked<String?>(nil)
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: transport,
            interceptors: [AuthInterceptor.basic(username: "alice", password: "wonderland")],
            networkInterceptors: [
                RequestRewriter { request in
                    seen.withLock { $0 = request.headers["X-Request-Id"] }
                    return request
                }
            ])
        // snippet: per-request-headers
        let request = RestingRequest(
            endpoint: StorageAPI.list, headers: ["X-Request-Id": "7f3a"], pathVariables: collection)
        let notes = try await client.send(request).body
        // end snippet
        #expect(notes.isEmpty)
        #expect(seen.withLock { $0 } == "7f3a")
    }

    @Test("Basic auth answers a 401 with one exchange: a fixed password has nothing to refresh")
    func basicAuthRefused() async throws {
        let exchanges = Locked(0)
        let counting = RequestRewriter { request in
            exchanges.withLock { $0 += 1 }
            return request
        }
        // snippet: basic-auth-401
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: transport,
            interceptors: [AuthInterceptor.basic(username: "alice", password: "guess")],
            networkInterceptors: [counting], errorBody: StorageError.self)
        do {
            _ = try await client.send(RestingRequest(endpoint: StorageAPI.list, pathVariables: collection))
        } catch let error as StorageError where error.response?.status == 401 {
            print("refused: \(error.message)")  // sent once, never again with the same password
        }
        // end snippet
        #expect(exchanges.withLock { $0 } == 1)
    }

    // snippet: generic-endpoints
    /// Every collection has the same operations: one family of generic functions serves them all, its type parameter
    /// inferred from the body sent or the value expected.
    enum Records {
        static func list<Item>(bucket: String, collection: String) -> Endpoint<Nothing, [Item]> {
            Endpoint(.get, "/v1/buckets/\(bucket)/collections/\(collection)/records").unwrapping("data")
        }
        static func create<Item>(bucket: String, collection: String) -> Endpoint<Item, Item> {
            Endpoint(.post, "/v1/buckets/\(bucket)/collections/\(collection)/records", encoding: .json)
                .wrapping("data").unwrapping("data")
        }
    }

    struct Bookmark: Codable, Sendable, Equatable {
        var id: String?
        var url: String
    }
    // end snippet

    @Test("a family of generic endpoints serves every collection")
    func genericEndpoints() async throws {
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: transport,
            interceptors: [AuthInterceptor.basic(username: "alice", password: "wonderland")])
        // snippet: generic-endpoints-call
        let created = try await client.call(
            Records.create(bucket: "examples", collection: name), body: Bookmark(url: "https://swift.org"))
        let bookmarks: [Bookmark] = try await client.call(Records.list(bucket: "examples", collection: name))
        // end snippet
        #expect(bookmarks == [created])
    }
}
