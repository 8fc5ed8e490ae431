import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import Testing

@Suite("Testing kit: mocks")
struct MockTests {
    let server: LocalServer
    init() async throws { server = try await LocalServer.sharedImageServer.value }

    let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query)

    @Test("an endpoint is mocked with an Encodable value, whatever its path variables, and calls are counted")
    func endpointMocks() async throws {
        let mocks = MockInterceptor(unmatched: .fail)
        let registration = mocks.register(getPost, try .json(PostModel(id: 7, userId: 1, title: "Mocked", body: "")))
        let client = RestingClient(baseUrl: server.baseURL, interceptors: [mocks])
        for id in [1, 2] {
            #expect(
                try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": id])).value.body.title
                    == "Mocked")
        }
        #expect(registration.callCount == 2)
    }

    @Test("a mock answers a streaming endpoint with chunks played out in time, and a buffered one with them joined")
    func streamedMocks() async throws {
        let mocks = MockInterceptor(unmatched: .fail)
        let feed = Endpoint<Nothing, JSONLines<PostModel>>(.get, "/feed", encoding: .query)
        let first = PostModel(id: 1, userId: 1, title: "one", body: "")
        let second = PostModel(id: 2, userId: 1, title: "two", body: "")
        // Encoded once: JSONEncoder does not promise the same key order twice.
        let lines = try [first, second].map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) + "\n" }
        mocks.register(feed, .stream([.text(lines[0]), .pause(.milliseconds(5)), .text(lines[1])]))
        let client = RestingClient(baseUrl: server.baseURL, interceptors: [mocks])
        var titles: [String] = []
        for try await post in try await client.perform(RestingRequest(endpoint: feed)).value.body {
            titles.append(post.title)
        }
        #expect(titles == ["one", "two"])

        let whole = Endpoint<Nothing, Data>(.get, "/feed", encoding: .query)
        #expect(try await client.perform(RestingRequest(endpoint: whole)).value.body == Data(lines.joined().utf8))
    }

    @Test("patterns, sequences, delays, errors, raw data and file fixtures")
    func patternsAndResponses() async throws {
        let fixture = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID()).json")
        try Data(#"{"id":3,"userId":2,"title":"From a file","body":""}"#.utf8).write(to: fixture)
        defer { try? FileManager.default.removeItem(at: fixture) }
        let mocks = MockInterceptor(unmatched: .fail)
        mocks.register(.get, "/posts/*", .status(503), try .file(fixture))
        mocks.register(.get, "/files/**", StubResponse.text("deep").delayed(by: .milliseconds(1)))
        mocks.register(
            .delete, "/posts/{{id}}",
            .failure(
                .transportFailed(TransportError(kind: .connectionReset, code: 0, domain: "mock", message: "reset"))))
        let client = RestingClient(baseUrl: server.baseURL, interceptors: [mocks])

        await #expect(throws: RestingError.self) {
            try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value
        }
        #expect(
            try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value.body.title
                == "From a file")
        let file = Endpoint<Nothing, Data>(.get, "/files/{{{path}}}", encoding: .query)
        #expect(
            try await client.perform(RestingRequest(endpoint: file, pathVariables: ["path": "a/b/c.txt"])).value.body
                == Data("deep".utf8))
        let delete = Endpoint<Nothing, Nothing>(.delete, "/posts/{{id}}", encoding: .query)
        do {
            _ = try await client.perform(RestingRequest(endpoint: delete, pathVariables: ["id": 1])).value
            Issue.record("expected the mocked error")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .connectionReset)
        }
    }

    @Test("mocked and real requests mix; in strict mode an unmatched request fails listing the mocks")
    func mixingAndStrictness() async throws {
        let passing = MockInterceptor()
        passing.register(.get, "/posts/1", try .json(PostModel(id: 1, userId: 1, title: "Mocked", body: "")))
        let client = RestingClient(baseUrl: server.baseURL, interceptors: [passing])
        #expect(
            try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value.body.title
                == "Mocked")
        #expect(
            try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 2])).value.body.title
                == "Post 2", "from image_server")

        let strict = MockInterceptor(unmatched: .fail)
        strict.register(.get, "/posts/1", .status(200))
        strict.register(.post, "/posts", .status(201))
        let strictClient = RestingClient(baseUrl: server.baseURL, interceptors: [strict])
        do {
            _ = try await strictClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 2])).value
            Issue.record("expected a failure")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.message == "no mock for GET /posts/2; registered: GET /posts/1, POST /posts")
        }
    }
}

/// An API key that never changes.
private struct StaticKey: CredentialProvider {
    func credential() async throws -> String { "s3cr3t" }
    func refreshedCredential(after rejected: String) async throws -> String { rejected }
}

@Suite("Testing kit: record and replay")
struct RecordReplayTests {
    let server: LocalServer
    init() async throws { server = try await LocalServer.sharedImageServer.value }

    @Test("a recorded session replays byte for byte with the network off, and secrets never reach the files")
    func recordThenReplayOffline() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recordings-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let getPost = Endpoint<Nothing, Data>(.get, "/posts/{{id}}", encoding: .query)
        let createPost = Endpoint<PostCreateModel, Data>(.post, "/posts", encoding: .json)
        let requests: [@Sendable (RestingClient) async throws -> RestingResponse<Data>] = [
            {
                try await $0.perform(
                    RestingRequest(
                        endpoint: getPost, headers: ["Authorization": "Bearer s3cr3t"], pathVariables: ["id": 1],
                        queryItems: [URLQueryItem(name: "access_token", value: "s3cr3t")])
                ).value
            },
            {
                try await $0.perform(
                    RestingRequest(endpoint: createPost, body: PostCreateModel(userId: 1, title: "A", body: "one"))
                ).value
            },
            {
                try await $0.perform(
                    RestingRequest(endpoint: createPost, body: PostCreateModel(userId: 1, title: "B", body: "two"))
                ).value
            },
            { try await $0.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 999])).value },
        ]
        // The auth interceptor's own header name, an API key header and a marked field are as secret as Authorization.
        let headerProvider = RestingHeaderProvider()
        headerProvider.addHeader(key: "X-Tenant-Secret", value: "s3cr3t", sensitive: true)
        headerProvider.addHeader(key: "X-Api-Key", value: "s3cr3t")
        let recording = RestingClient(
            baseUrl: server.baseURL,
            requestConverter: RestingRequestConverter(configuration: .init(headerProvider: headerProvider)),
            interceptors: [
                AuthInterceptor(provider: StaticKey(), headerName: "X-Custom-Auth"),
                RecordReplayInterceptor(directory: directory, mode: .record),
            ])
        var recorded: [Result<RestingResponse<Data>, any Error>] = []
        for request in requests { recorded.append(await Result { try await request(recording) }) }

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 4, "one file per exchange; the two POSTs differ by body")
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("s3cr3t"), "\(file)")
        }

        let offline = ClosureHTTPClient { _ in
            throw RestingError.transportFailed(
                TransportError(kind: .connectionFailed, code: 0, domain: "test", message: "network off"))
        }
        let replaying = RestingClient(
            baseUrl: server.baseURL, httpClient: offline,
            interceptors: [RecordReplayInterceptor(directory: directory, mode: .replayOnly)])
        for (request, original) in zip(requests, recorded) {
            let replayed = await Result { try await request(replaying) }
            switch (original, replayed) {
            case (.success(let first), .success(let second)):
                #expect(first.status == second.status && first.body == second.body)
            case (.failure(RestingError.httpError(let first)), .failure(RestingError.httpError(let second))):
                #expect(first.status == second.status && first.body == second.body)
            default:
                Issue.record("recorded \(original), replayed \(replayed)")
            }
        }
    }

    @Test("replay-only mode fails an unrecorded request, naming the missing fixture")
    func unrecordedRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recordings-\(UUID())")
        let client = RestingClient(
            baseUrl: server.baseURL, interceptors: [RecordReplayInterceptor(directory: directory, mode: .replayOnly)])
        do {
            _ = try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/posts/1", encoding: .query))
            ).value
            Issue.record("expected a failure")
        } catch RestingError.transportFailed(let failure) {
            #expect(
                failure.message.hasPrefix(
                    "no recording for GET \(server.baseURL)/posts/1 (expected \(directory.path)/GET-posts_1-"))
        }
    }
}

@Suite("FakeChain: one interceptor tested alone")
struct FakeChainTests {
    let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/items")!)

    @Test("a transport error is simulated, and a retrying interceptor sees it and the next answer")
    func simulatedFailure() async throws {
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .zero
        let refused = RestingError.transportFailed(
            TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused"))
        let chain = FakeChain(.failure(refused), .status(200))
        let response = try await chain.run(RetryInterceptor(policy: policy), on: request)
        #expect(response.status == 200 && chain.callCount == 2)
    }

    @Test("an answer closure sees each request; a short-circuiting interceptor leaves the chain uncalled")
    func answerClosureAndShortCircuit() async throws {
        let chain = FakeChain { request in
            HTTPDataResponse(status: request.headers["X-Token"] == nil ? 401 : 200, url: request.url)
        }
        struct Token: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.headers["X-Token"] = "t"
                return try await execution(request)
            }
        }
        #expect(try await chain.run(Token(), on: request).status == 200)
        struct Offline: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                HTTPDataResponse(status: 503, url: request.url)
            }
        }
        let untouched = FakeChain()
        #expect(try await untouched.run(Offline(), on: request).status == 503)
        #expect(untouched.callCount == 0)
    }

    @Test("JSON answers carry their body and headers as a transport would deliver them")
    func jsonAnswer() async throws {
        let chain = FakeChain(try .json(["ok": true]))
        let response = try await chain.run(LoggingInterceptor(level: .none), on: request)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(try JSONDecoder().decode([String: Bool].self, from: response.body.bytes) == ["ok": true])
    }
}
