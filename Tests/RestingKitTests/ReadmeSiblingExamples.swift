import Foundation
import RestingKit
import RestingServerHarness
import Testing

// The README's examples of the features taken from the sibling libraries, verbatim between the markers.

@Suite("README examples: concurrency, de-duplication, JSON-RPC")
struct ReadmeSiblingExamples {
    let server: LocalServer
    var baseUrl: String { server.baseURL }

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    @Test("concurrency modes and cancel-all")
    func concurrency() async throws {
        // snippet: concurrency
        let throttledClient = RestingClient(baseUrl: baseUrl, concurrency: .limited(4))  // or .serial, .unlimited
        let slowEndpoint = Endpoint<Nothing, Nothing>(.get, "/delay/{{ms}}")
        let calls = (0..<10).map { _ in
            throttledClient.perform(RestingRequest(endpoint: slowEndpoint, pathVariables: ["ms": 30_000]))
        }
        throttledClient.cancelAll()  // the 4 running and the 6 waiting all end with RestingError.cancelled
        // end snippet
        for call in calls {
            await #expect(throws: RestingError.self) { try await call.value }
        }
    }

    @Test("in-flight de-duplication")
    func deduplication() async throws {
        // snippet: deduplication
        let sharingClient = RestingClient(baseUrl: baseUrl, interceptors: [DeduplicationInterceptor()])
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}")
        async let first = sharingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value
        async let second = sharingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value
        let (a, b) = try await (first, second)  // one request reached the server
        // end snippet
        #expect(a.body.id == 1 && b.body.id == 1)
    }

    @Test("JSON-RPC 2.0")
    func jsonRPC() async throws {
        // snippet: json-rpc
        let rpc = JSONRPCClient(client: RestingClient(baseUrl: baseUrl), path: "/rpc")
        let subtract = JSONRPCMethod<[Int], Int>("subtract")
        let difference = try await rpc.call(subtract, params: [42, 23])  // 19

        var batch = JSONRPCBatch()
        let sum = try batch.add(JSONRPCMethod<[Int], Int>("sum"), params: [1, 2, 4])
        batch.notify(JSONRPCMethod<Nothing, Nothing>("hello"), params: Nothing())
        let seven = try await rpc.send(batch).result(for: sum)

        do {
            _ = try await rpc.call(JSONRPCMethod<Nothing, Int>("fail"), params: Nothing())
        } catch let error as JSONRPCError {
            print("JSON-RPC error \(error.code): \(error.message), data: \(String(describing: error.data))")
        }
        // end snippet
        #expect(difference == 19 && seven == 7)
    }
}

@Suite("README examples: pagination and resources")
@MainActor
struct ReadmePaginationExamples {
    let baseUrl: String

    init() async throws { baseUrl = try await LocalServer.sharedImageServer.value.baseURL }

    @Test("pages and items, lazily")
    func pagination() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        var pageCount = 0
        // snippet: pagination
        let listPosts = Endpoint<Nothing, [PostModel]>(.get, "/posts")
        let firstPage = [URLQueryItem(name: "_page", value: "1"), URLQueryItem(name: "_limit", value: "4")]
        for try await page in restingClient.pages(of: listPosts, queryItems: firstPage, pagination: .linkHeader) {
            print("a page of \(page.count) posts")  // fetched one at a time, until Link has no rel="next"
            pageCount += 1
        }
        let byNumber = restingClient.pages(
            of: listPosts, pagination: .pageNumber(page: "_page", size: "_limit", pageSize: 4))
        for try await post in byNumber.items where post.userId == 1 {
            print(post.title)
        }
        // end snippet
        #expect(pageCount >= 2)
    }

    @Test("an observable resource")
    func resource() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        // snippet: resource
        let post = RemoteResource(
            client: restingClient,
            read: Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}"),
            update: Endpoint<PostModel, PostModel>(.put, "/posts/{{id}}", encoding: .json),
            pathVariables: ["id": 2])
        await post.load()
        switch post.state {
        case .idle, .loading: print("…")
        case .available(let value): print("loaded \(value.title)")
        case .failure(let error, _): print("failed: \(error)")
        }
        // end snippet
        #expect(post.value?.id == 2)
    }
}

@Suite("README examples: offline queue")
struct ReadmeOfflineExamples {
    @Test("requests kept while offline are replayed in order")
    func offlineQueue() async throws {
        let outboxDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID())")
        defer { try? FileManager.default.removeItem(at: outboxDirectory) }
        // The API's port, held with nothing listening on it until image_server starts there below ("the network is
        // back"): no server another test starts can take it meanwhile.
        let refusing = try RefusingPort()
        let port = refusing.port
        let restingClient = RestingClient(baseUrl: "http://127.0.0.1:\(port)")
        var server: LocalServer?
        defer { server?.stop() }
        // snippet: offline-queue
        let outbox = try OfflineQueue(directory: outboxDirectory)
        let createPost = Endpoint<PostCreateModel, PostModel>(.post, "/posts", encoding: .json)
        let draft = RestingRequest(
            endpoint: createPost, body: PostCreateModel(userId: 1, title: "Written offline", body: "…"))
        do {
            _ = try await restingClient.perform(draft, storingOfflineIn: outbox).value
        } catch {
            print("kept for later: \(try outbox.entries().count) request(s) waiting")
        }
        // end snippet
        refusing.release()
        server = try await LocalServer.start(script: LocalServer.imageServerScript, arguments: ["--port", "\(port)"])
        // snippet: offline-replay
        let report = try await outbox.replay(with: restingClient) { sent, total in print("sent \(sent) of \(total)") }
        // end snippet
        let waiting = try outbox.entries()
        #expect(report.sent == 1 && report.remaining == 0 && waiting.isEmpty)
    }
}
