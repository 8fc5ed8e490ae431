import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("In-flight de-duplication", .timeLimit(.minutes(5)))
struct DeduplicationInterceptorTests {
    let stub = StubHTTPClient()
    var client: RestingClient {
        RestingClient(baseUrl: "https://api.example.com", httpClient: stub, interceptors: [DeduplicationInterceptor()])
    }

    @Test("requests that differ by a header, or carry a body, are not shared")
    func onlyIdenticalIdempotentRequestsAreShared() async throws {
        stub.register(.get, "/thing", StubResponse.status(200).delayed(by: .milliseconds(50)))
        stub.register(.post, "/thing", StubResponse.status(200).delayed(by: .milliseconds(50)))
        let get = Endpoint<Nothing, Nothing>(.get, "/thing", encoding: .query)
        let post = Endpoint<Data, Nothing>(.post, "/thing", encoding: .raw(contentType: "text/plain"))
        let client = client
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await client.perform(RestingRequest(endpoint: get, headers: ["Accept-Language": "fr"])).value
            }
            group.addTask {
                _ = try await client.perform(RestingRequest(endpoint: get, headers: ["Accept-Language": "en"])).value
            }
            group.addTask {
                _ = try await client.perform(
                    RestingRequest(endpoint: get, headers: ["Accept-Language": "en", "X-Request-Id": "2"])
                ).value
            }
            group.addTask { _ = try await client.perform(RestingRequest(endpoint: post, body: Data("a".utf8))).value }
            group.addTask { _ = try await client.perform(RestingRequest(endpoint: post, body: Data("a".utf8))).value }
            try await group.waitForAll()
        }
        let gets = stub.received.filter { $0.request.method == .get }.count
        #expect(
            gets == 2 || gets == 3,
            "fr, and en shared with the one that differs only by an ignored header when they overlap")
        #expect(stub.received.filter { $0.request.method == .post }.count == 2)
    }

    @Test("two downloads of one URL to different files are never merged: each file is written")
    func downloadsAreNeverShared() async throws {
        stub.register(
            .get, "/report", StubResponse.status(200, body: Data("report".utf8)).delayed(by: .milliseconds(200)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dedup-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [directory.appendingPathComponent("a.txt"), directory.appendingPathComponent("b.txt")]
        let report = Endpoint<Nothing, Nothing>(.get, "/report", encoding: .query)
        let client = client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for file in files {
                group.addTask { _ = try await client.download(RestingRequest(endpoint: report), to: file).value }
            }
            try await group.waitForAll()
        }
        for file in files { #expect(try Data(contentsOf: file) == Data("report".utf8), "\(file.lastPathComponent)") }
        #expect(stub.received.count == 2)
    }

    @Test("sharing can be limited to some endpoints")
    func perEndpointOptIn() async throws {
        stub.register(.get, "/shared", StubResponse.status(200).delayed(by: .milliseconds(50)))
        stub.register(.get, "/private", StubResponse.status(200).delayed(by: .milliseconds(50)))
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [DeduplicationInterceptor(sharing: { $0.url.path == "/shared" })])
        let shared = Endpoint<Nothing, Nothing>(.get, "/shared", encoding: .query)
        let unshared = Endpoint<Nothing, Nothing>(.get, "/private", encoding: .query)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask { _ = try await client.perform(RestingRequest(endpoint: shared)).value }
                group.addTask { _ = try await client.perform(RestingRequest(endpoint: unshared)).value }
            }
            try await group.waitForAll()
        }
        #expect(stub.received.filter { $0.request.url.path == "/private" }.count == 5)
        #expect(stub.received.filter { $0.request.url.path == "/shared" }.count < 5)
    }

    @Test("a caller that cancels stops at once; the others still get the response, even when it was the sender")
    func oneCallerCancels() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let transport = ClosureHTTPClient { _ in
            for await _ in gate.stream { break }
            try Task.checkCancellation()  // like a real transport: a cancelled call gets no response
            return HTTPDataResponse(status: 200, body: ResponseBody(Data("shared".utf8)))
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport, interceptors: [DeduplicationInterceptor()])
        let get = Endpoint<Nothing, Data>(.get, "/thing", encoding: .query)
        let first = client.perform(RestingRequest(endpoint: get))
        let second = client.perform(RestingRequest(endpoint: get))
        first.cancel()
        guard case .cancelled = await Result(catching: { try await first.value }).failure else {
            Issue.record("the cancelled waiter must fail with .cancelled")
            return
        }
        gate.continuation.yield()
        #expect(try await second.value.body == Data("shared".utf8))
    }

    @Test("when every caller cancels, the request is cancelled")
    func allWaitersCancel() async throws {
        let sawCancellation = Collector<Bool>()
        let transport = ClosureHTTPClient { _ in
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                sawCancellation.append(true)
                throw RestingError.cancelled
            }
            return HTTPDataResponse(status: 200)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport, interceptors: [DeduplicationInterceptor()])
        let get = Endpoint<Nothing, Data>(.get, "/thing", encoding: .query)
        let waiters = (0..<5).map { _ in client.perform(RestingRequest(endpoint: get)) }
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            guard case .cancelled = await Result(catching: { try await waiter.value }).failure else {
                Issue.record("expected .cancelled")
                continue
            }
        }
        await sawCancellation.wait { !$0.isEmpty }
    }
}
