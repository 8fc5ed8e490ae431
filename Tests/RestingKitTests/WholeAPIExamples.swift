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
        let orders: [Record<Order>] = try await client.call(
            Kinto.records("examples", name), headers: ["X-Request-Id": "7f3a"])
        // end snippet
        #expect(orders.isEmpty)
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
            networkInterceptors: [counting], errorBody: KintoError.self)
        let orders = Records<Order>(client: client, bucket: "examples", collection: name)
        do {
            _ = try await orders.get("r1")
        } catch let error as KintoError where error.response?.status == 401 {
            print("refused: \(error.message)")  // sent once, never again with the same password
        }
        // end snippet
        #expect(exchanges.withLock { $0 } == 1)
    }

    struct Bookmark: Codable, Sendable, Equatable {
        var url: String
    }

    @Test("a family of generic endpoints serves every collection, its type inferred from the body or the result")
    func genericEndpoints() async throws {
        let client = RestingClient.kinto(baseUrl, transport: transport, user: "alice", password: "wonderland")
        // snippet: generic-endpoints-call
        let created = try await client.call(Kinto.create("examples", name), body: Bookmark(url: "https://swift.org"))
        let bookmarks: [Record<Bookmark>] = try await client.call(Kinto.records("examples", name))
        // end snippet
        #expect(bookmarks.map(\.id) == [created.id])
        #expect(bookmarks.map(\.fields) == [Bookmark(url: "https://swift.org")])
    }
}
