import Foundation
import RestingKit
import RestingServerHarness

extension Demo {
    struct Hits: Decodable, Sendable { let hits: Int }

    func siblingFeatures() async throws {
        section(
            "9. From the sibling libraries: concurrency limits, de-duplication, JSON-RPC, pagination, resources, offline queue"
        )

        let limited = RestingClient(baseUrl: baseUrl, httpClient: transport, concurrency: .limited(2))
        let slow = Endpoint<Nothing, Nothing>(.get, "/delay/{{ms}}", encoding: .query)
        let calls = (0..<6).map { _ in limited.perform(RestingRequest(endpoint: slow, pathVariables: ["ms": 30_000])) }
        limited.cancelAll()
        var cancelled = 0
        for call in calls {
            do {
                _ = try await call.value
            } catch RestingError.cancelled {
                cancelled += 1
            }
        }
        print("  6 slow calls through .limited(2), running or waiting, then cancelAll() → \(cancelled) cancelled")
        try check(cancelled == 6, "every call should be cancelled")

        let sharing = client(interceptors: [DeduplicationInterceptor()])
        let key = UUID().uuidString
        let counted = Endpoint<Nothing, Hits>(.get, "/counted/{{key}}?delay_ms=200", encoding: .query)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    _ = try await sharing.perform(RestingRequest(endpoint: counted, pathVariables: ["key": key])).value
                }
            }
            try await group.waitForAll()
        }
        let hits = try await client().perform(
            RestingRequest(
                endpoint: Endpoint<Nothing, Hits>(.get, "/hits/{{key}}", encoding: .query),
                pathVariables: ["key": key])
        ).value.body.hits
        print("  20 identical GETs at once with DeduplicationInterceptor → the server saw \(hits)")
        try check(hits == 1, "the requests should have been shared")

        let rpc = JSONRPCClient(client: client(), path: "/rpc")
        let difference = try await rpc.call(JSONRPCMethod<[Int], Int>("subtract"), params: [42, 23])
        var batch = JSONRPCBatch()
        let sum = try batch.add(JSONRPCMethod<[Int], Int>("sum"), params: [1, 2, 4])
        let subtraction = try batch.add(JSONRPCMethod<[Int], Int>("subtract"), params: [10, 3])
        let answers = try await rpc.send(batch)
        print(
            "  JSON-RPC: subtract(42, 23) = \(difference); a batch answered in reverse order: sum = \(try answers.result(for: sum)), subtract(10, 3) = \(try answers.result(for: subtraction))"
        )
        do {
            _ = try await rpc.call(JSONRPCMethod<Nothing, Int>("fail"), params: Nothing())
        } catch let error as JSONRPCError {
            print("  JSON-RPC error object → \(error)")
        }

        let listPosts = Endpoint<Nothing, [PostModel]>(.get, "/posts", encoding: .query)
        let firstPage = [URLQueryItem(name: "_page", value: "1"), URLQueryItem(name: "_limit", value: "4")]
        var sizes: [Int] = []
        for try await page in client().pages(of: listPosts, queryItems: firstPage, pagination: .linkHeader) {
            sizes.append(page.count)
        }
        print(
            "  /posts by Link rel=\"next\", 4 at a time → pages of \(sizes.map(String.init).joined(separator: ", ")) posts"
        )

        let title = try await loadResource()
        print("  RemoteResource for /posts/2 → available: \"\(title)\"")

        try await offlineQueue()
    }

    private func offlineQueue() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "restingkit-demo-outbox-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try OfflineQueue(directory: directory)
        // The API's port, held with nothing listening on it yet: the requests are refused and kept.
        let refusing = try RefusingPort()
        let port = refusing.port
        let api = RestingClient(baseUrl: "http://127.0.0.1:\(port)", httpClient: transport)
        for title in ["Written offline 1", "Written offline 2"] {
            let draft = RestingRequest(
                endpoint: API.createPost, body: PostCreateModel(userId: 1, title: title, body: ""))
            _ = try? await api.perform(draft, storingOfflineIn: outbox).value
        }
        print("  offline: \(try outbox.entries().count) posts kept in \(directory.lastPathComponent)")
        // The network is back: an image_server answers on the API's port (a replay goes where its call went).
        refusing.release()
        let server = try await LocalServer.start(
            script: LocalServer.imageServerScript, arguments: ["--port", "\(port)"])
        defer { server.stop() }
        let report = try await outbox.replay(with: api) { sent, total in print("    replayed \(sent)/\(total)") }
        print("  back online: \(report.sent) sent in order, \(report.remaining) left")
        try check(report.sent == 2 && report.remaining == 0, "both posts should be replayed")
    }

    @MainActor
    private func loadResource() async throws -> String {
        let post = RemoteResource(
            client: client(), read: Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query),
            pathVariables: ["id": 2])
        await post.load()
        guard case .available(let value) = post.state else { throw UnexpectedResult(description: "post 2 should load") }
        return value.title
    }
}
