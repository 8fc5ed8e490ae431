#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import RestingAuthentication
import RestingCache
import RestingCore
import RestingCurl
import RestingOpenAPI
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

/// The client swift-openapi-generator made from Tests/OpenAPIClient/openapi.yaml (image_server's API), sent through a
/// `RestingClient` with interceptors, over both transports, against image_server.
@Suite("A generated OpenAPI client over RestingKit", .timeLimit(.minutes(5)))
struct ImageServerClientTests {
    /// The operations that reached the network, by operationID, as an interceptor sees them.
    final class OperationLog: RestingInterceptor {
        let seen = Locked<[String]>([])
        func intercept(request: RestingCore.HTTPRequest, execution: InterceptorExecution) async throws
            -> HTTPDataResponse
        {
            seen.withLock { $0.append(request.attributes.operationID ?? "") }
            return try await execution(request)
        }
    }

    /// Treats one operation differently, by its id: the token operation goes without a credential.
    struct NoCredentialForTheToken: RestingInterceptor {
        func intercept(request: RestingCore.HTTPRequest, execution: InterceptorExecution) async throws
            -> HTTPDataResponse
        {
            guard request.attributes.operationID == "issueToken" else { return try await execution(request) }
            var request = request
            request.attributes.requiresAuthentication = false
            return try await execution(request)
        }
    }

    /// Starts with a revoked token and asks the API itself for a new one when it is rejected.
    final class Tokens: CredentialProvider {
        let api = Locked<Client?>(nil)
        func credential() async throws -> String { "Bearer revoked" }
        func refreshedCredential(after rejected: String) async throws -> String {
            guard let api = api.withLock({ $0 }) else { throw RestingError.cancelled }
            return "Bearer \(try await api.issueToken().ok.body.json.token)"
        }
    }

    /// What the request bodies of the operations looked like when they reached the network.
    final class BodyLog: RestingInterceptor {
        let seen = Locked<[(operation: String, isSequence: Bool, isSinglePass: Bool)]>([])
        func intercept(request: RestingCore.HTTPRequest, execution: InterceptorExecution) async throws
            -> HTTPDataResponse
        {
            var isSequence = false
            var isSinglePass = false
            if case .sequence(let sequence) = request.body.source {
                isSequence = true
                isSinglePass = sequence.iteration == .single
            }
            seen.withLock { $0.append((request.attributes.operationID ?? "", isSequence, isSinglePass)) }
            return try await execution(request)
        }
    }

    /// `count` chunks of `size` bytes (every byte of chunk i is i % 251), produced as they are asked for.
    struct Chunks: AsyncSequence, Sendable {
        let size: Int
        let count: Int

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var index = 0
            mutating func next() async -> ArraySlice<UInt8>? {
                guard index < chunks.count else { return nil }
                defer { index += 1 }
                return ArraySlice(repeating: UInt8(index % 251), count: chunks.size)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
    }

    struct Setup {
        /// An image_server of the test's own: its posts and its one current token are no other test's to change.
        let server: LocalServer
        let api: Client
        let operations: OperationLog
        let tokens: Tokens

        /// Stops the server, and breaks the cycle the token refresh needs (the client's credential provider asks
        /// the client itself for a token), which would otherwise keep the whole client alive.
        func tearDown() {
            server.stop()
            tokens.api.withLock { $0 = nil }
        }
    }

    func setUp(_ transport: any HTTPClient) async throws -> Setup {
        let server = try await LocalServer.start(script: LocalServer.imageServerScript)
        let operations = OperationLog()
        let tokens = Tokens()
        var retry = RetryInterceptor.Policy()
        retry.baseDelay = .milliseconds(1)
        let resting = RestingClient(
            baseUrl: server.baseURL, httpClient: transport,
            interceptors: [
                NoCredentialForTheToken(), RetryInterceptor(policy: retry), AuthInterceptor(provider: tokens),
                HTTPCacheInterceptor(store: MemoryCacheStore()),
            ],
            networkInterceptors: [operations])
        let api = Client(
            serverURL: try #require(URL(string: server.baseURL)), transport: RestingClientTransport(client: resting))
        tokens.api.withLock { $0 = api }
        return Setup(server: server, api: api, operations: operations, tokens: tokens)
    }

    static let transports: [@Sendable () throws -> any HTTPClient] = [
        { try CurlClient() }, { URLSessionClient(configuration: .ephemeral) },
    ]

    @Test("JSON bodies, a path parameter, a query and an error response", arguments: [0, 1])
    func jsonOperations(transport: Int) async throws {
        let setup = try await setUp(try Self.transports[transport]())
        defer { setup.tearDown() }
        let (api, operations) = (setup.api, setup.operations)
        let posts = try await api.listPosts(query: .init(userId: 1)).ok.body.json
        #expect(posts.map(\.id) == [1, 2, 3, 4, 5] && posts.allSatisfy { $0.userId == 1 })
        let created = try await api.createPost(body: .json(.init(userId: 3, title: "t", body: "b"))).created
        let post = try created.body.json
        #expect(post.title == "t")
        #expect(created.headers.location == "/posts/\(post.id)")
        let missing = try await api.getPost(path: .init(id: 999_999)).notFound
        let error = try missing.body.json
        #expect(error.error.contains("not found"))
        #expect(operations.seen.withLock { $0 } == ["listPosts", "createPost", "getPost"])
    }

    @Test(
        "a 503 is retried, a 401 refreshes the token through the API itself, a second GET is a cache hit",
        arguments: [0, 1])
    func interceptorsAtWork(transport: Int) async throws {
        let setup = try await setUp(try Self.transports[transport]())
        defer { setup.tearDown() }
        let key = UUID().uuidString
        let flaky = try await setup.api.flaky(path: .init(key: key), query: .init(failures: 1)).ok.body.json
        #expect(flaky.attempts == 2)

        #expect(try await setup.api.whoAmI().ok.body.json.user == "demo")

        for _ in 0..<2 {
            let resource = try await setup.api.cachedResource(path: .init(key: key), query: .init(maxAge: 60)).ok
            let json = try resource.body.json
            #expect(json.key == key)
        }
        #expect(try await setup.api.cacheHits(path: .init(key: key)).ok.body.json.requests == 1)
        #expect(
            setup.operations.seen.withLock { $0 }
                == ["flaky", "flaky", "whoAmI", "issueToken", "whoAmI", "cachedResource", "cacheHits"])
    }

    struct Item: Decodable, Sendable {
        let id: Int
        let text: String
    }

    @Test("an NDJSON stream is decoded as it arrives; a multipart upload arrives whole", arguments: [0, 1])
    func streamAndUpload(transport: Int) async throws {
        let setup = try await setUp(try Self.transports[transport]())
        defer { setup.tearDown() }
        let body = try await setup.api.streamItems(query: .init(count: 3, intervalMs: 10)).ok.body.applicationXNdjson
        var items: [Item] = []
        for try await item in body.asDecodedJSONLines(of: Item.self) { items.append(item) }
        #expect(items.map(\.id) == [1, 2, 3])

        let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
        let upload = try await setup.api.uploadFile(
            body: .multipartForm([
                .caption(.init(payload: .init(body: HTTPBody("a caption")))),
                .file(.init(payload: .init(body: HTTPBody(bytes)), filename: "generated.bin")),
            ])
        ).created.body.json
        #expect(upload.size == 100_000)
        #expect(upload.sha256 == SHA256.hex(bytes))
    }

    @Test(
        "100 MiB from an async sequence go through the generated putFile as they are produced, and arrive whole",
        arguments: [0, 1])
    func hundredMebibyteUpload(transport: Int) async throws {
        let server = try await LocalServer.start(script: LocalServer.imageServerScript)
        defer { server.stop() }
        let bodies = BodyLog()
        let resting = RestingClient(
            baseUrl: server.baseURL, httpClient: try Self.transports[transport](), networkInterceptors: [bodies])
        let api = Client(
            serverURL: try #require(URL(string: server.baseURL)), transport: RestingClientTransport(client: resting))
        let chunks = Chunks(size: 64 * 1024, count: 1600)
        let stored = try await api.putFile(
            path: .init(name: "generated-100MiB.bin"),
            body: .binary(HTTPBody(chunks, length: .unknown, iterationBehavior: .single))
        ).created.body.json
        #expect(stored.size == 100 * 1024 * 1024)
        #expect(stored.sha256 == (try await ChunkPatternDigest.sha256(chunkSize: 64 * 1024, count: 1600)))
        // Handed on as a single-pass sequence, never collected: the transports' bound on what a sequence may hold
        // applies (measured in "Uploads from an async sequence").
        #expect(bodies.seen.withLock { $0.map(\.operation) } == ["putFile"])
        #expect(bodies.seen.withLock { $0.allSatisfy { $0.isSequence && $0.isSinglePass } })
    }
}
#endif
