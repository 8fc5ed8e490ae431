import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

@Suite("JSON-RPC 2.0 against image_server")
struct JSONRPCTests {
    struct Operands: Codable, Sendable {
        let minuend: Int
        let subtrahend: Int
    }

    let subtract = JSONRPCMethod<[Int], Int>("subtract")
    let subtractNamed = JSONRPCMethod<Operands, Int>("subtract")
    let sum = JSONRPCMethod<[Int], Int>("sum")
    let echo = JSONRPCMethod<[String: String], [String: String]>("echo")
    let hello = JSONRPCMethod<Nothing, Nothing>("hello")
    let notifications = JSONRPCMethod<Nothing, Int>("notifications")
    let fail = JSONRPCMethod<Nothing, Int>("fail")
    let missing = JSONRPCMethod<Nothing, Int>("no_such_method")

    let seen = Collector<String>()
    let rpc: JSONRPCClient

    init() async throws {
        let server = try await LocalServer.sharedImageServer.value
        let seen = seen
        let recorder = RequestRewriter { request in
            seen.append("\(request.method) \(request.url.path)")
            return request
        }
        rpc = JSONRPCClient(
            client: RestingClient(baseUrl: server.baseURL, httpClient: try CurlClient(), interceptors: [recorder]))
    }

    @Test("typed calls with positional and named params, through the client's interceptors")
    func calls() async throws {
        #expect(try await rpc.call(subtract, params: [42, 23]) == 19)
        #expect(try await rpc.call(subtractNamed, params: Operands(minuend: 23, subtrahend: 42)) == -19)
        #expect(try await rpc.call(echo, params: ["a": "b"]) == ["a": "b"])
        #expect(seen.all == ["POST /rpc", "POST /rpc", "POST /rpc"])
    }

    @Test("error objects are typed errors with code, message and data")
    func errors() async throws {
        do {
            _ = try await rpc.call(fail, params: Nothing())
            Issue.record("expected an error")
        } catch let error as JSONRPCError {
            #expect(
                error
                    == JSONRPCError(
                        code: -32000, message: "Server error", data: .object(["detail": .string("failing on purpose")]))
            )
        }
        await #expect(throws: JSONRPCError(code: JSONRPCError.methodNotFound, message: "Method not found")) {
            try await rpc.call(missing, params: Nothing())
        }
        await #expect(throws: JSONRPCError(code: JSONRPCError.invalidParams, message: "Invalid params")) {
            try await rpc.call(subtract, params: [1])
        }
    }

    @Test("a notification gets no response and is still delivered")
    func notificationsAreDelivered() async throws {
        let before = try await rpc.call(notifications, params: Nothing())
        try await rpc.notify(hello, params: Nothing())
        // Other tests notify the shared server too: at least this one arrived.
        #expect(try await rpc.call(notifications, params: Nothing()) >= before + 1)
    }

    @Test("a batch's responses are matched to calls by id, in whatever order they come")
    func batch() async throws {
        var batch = JSONRPCBatch()
        let difference = try batch.add(subtract, params: [10, 4])
        batch.notify(hello, params: Nothing())
        let total = try batch.add(sum, params: [1, 2, 4])
        let failing = try batch.add(fail, params: Nothing())
        let named = try batch.add(subtractNamed, params: Operands(minuend: 5, subtrahend: 7))
        let beyondDouble = try batch.add(sum, params: [9_007_199_254_740_993, 0])  // 2^53 + 1
        let answers = try await rpc.send(batch)  // image_server answers in reverse order
        #expect(try answers.result(for: difference) == 6)
        #expect(try answers.result(for: total) == 7)
        #expect(try answers.result(for: named) == -2)
        #expect(try answers.result(for: beyondDouble) == 9_007_199_254_740_993, "results are kept with every digit")
        #expect(throws: JSONRPCError.self) { try answers.result(for: failing) }
    }

    @Test("a batch of notifications only gets no responses")
    func notificationOnlyBatch() async throws {
        var batch = JSONRPCBatch()
        batch.notify(hello, params: Nothing())
        batch.notify(hello, params: Nothing())
        _ = try await rpc.send(batch)
    }
}
