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
        let slowEndpoint = Endpoint<Nothing, Nothing>(.get, "/delay/{{ms}}", encoding: .query)
        let calls = (0..<10).map { _ in throttledClient.perform(RestingRequest(endpoint: slowEndpoint, pathVariables: ["ms": 30_000])) }
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
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query)
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
