import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import Synchronization
import Testing

// The README's interceptor-library and testing-kit examples, verbatim between the snippet markers.

// snippet: token-store
/// Fetches tokens from the API's token endpoint — through the very client it authenticates.
final class TokenStore: CredentialProvider {
    struct Token: Decodable, Sendable { let token: String }
    /// The token endpoint needs no token: `AuthInterceptor` passes its requests on untouched.
    let issueToken = Endpoint<Nothing, Token>(.post, "/auth/token", encoding: .json)
        .setting(\.requiresAuthentication, false)
    /// Weak: the client holds this store through its `AuthInterceptor`.
    private let client = Mutex(WeakClient())
    struct WeakClient: Sendable { weak var client: RestingClient? }

    func use(_ client: RestingClient) { self.client.withLock { $0.client = client } }

    func credential() async throws -> String {
        try await refreshedCredential(after: "")
    }

    func refreshedCredential(after rejected: String) async throws -> String {
        guard let client = client.withLock({ $0.client }) else { throw RestingError.cancelled }
        return "Bearer " + (try await client.perform(RestingRequest(endpoint: issueToken)).value.body.token)
    }
}
// end snippet

@Suite("README interceptor and testing-kit examples")
struct ReadmeInterceptorExamples {
    let server: LocalServer
    var baseUrl: String { server.baseURL }

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    struct Attempts: Decodable, Sendable { let attempts: Int }
    struct Me: Decodable, Sendable { let user: String }

    @Test("logging, redaction and cURL descriptions")
    func logging() async throws {
        // snippet: logging
        var redaction = RedactionPolicy.default
        redaction.headerNames.insert("X-Tenant")
        let logging = LoggingInterceptor(level: .info, logger: StandardErrorLogger(), redaction: redaction)
        let loggingClient = RestingClient(baseUrl: baseUrl, interceptors: [logging])
        // end snippet
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}")
        #expect(
            try await loggingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value.body.id
                == 1)

        let request = HTTPRequest(
            method: .get, url: try #require(URL(string: baseUrl + "/posts/1")), headers: ["X-Api-Key": "k"])
        // snippet: curl
        print(request.cURLDescription())  // X-Api-Key and Authorization are redacted by default…
        print(request.cURLDescription(redaction: .none))  // …or not, to replay the request exactly
        // end snippet
        #expect(request.cURLDescription().contains("X-Api-Key: <redacted>"), "redacted by the default policy")
        #expect(request.cURLDescription(redaction: .none).contains("X-Api-Key: k"))
    }

    @Test("retry with backoff and a shared budget")
    func retry() async throws {
        // snippet: retry
        var policy = RetryInterceptor.Policy()
        policy.maximumAttempts = 4
        policy.maximumDelay = .seconds(5)
        let budget = RetryBudget(ratio: 0.2, reserve: 10)  // one budget for the whole client
        let retryingClient = RestingClient(
            baseUrl: baseUrl, interceptors: [RetryInterceptor(policy: policy, budget: budget)])
        // end snippet
        let flaky = Endpoint<Nothing, Attempts>(.get, "/flaky/{{key}}?failures=2")
        let attempts = try await retryingClient.perform(
            RestingRequest(endpoint: flaky, pathVariables: ["key": UUID().uuidString])
        ).value.body.attempts
        #expect(attempts == 3)
    }

    @Test("auth with a single-flight refresh")
    func auth() async throws {
        let signOuts = Collector<Bool>()
        // snippet: auth
        let tokens = TokenStore()
        let auth = AuthInterceptor(provider: tokens) { error in
            signOuts.append(true)  // the refresh failed: sign the user out
        }
        let authorizedClient = RestingClient(baseUrl: baseUrl, interceptors: [auth])
        tokens.use(authorizedClient)  // one client: the token endpoint is marked as needing no auth
        // end snippet
        let me = Endpoint<Nothing, Me>(.get, "/auth/me")
        #expect(try await authorizedClient.perform(RestingRequest(endpoint: me)).value.body.user == "demo")
        #expect(signOuts.all.isEmpty)
    }

    @Test("validation, defaults, rewriting and events")
    func validationDefaultsAndEvents() async throws {
        let seen = Collector<String>()
        // snippet: validation-defaults-events
        let events: @Sendable (RestingEvent) -> Void = { event in
            if case .responseReceived(let request, let response, let duration) = event {
                seen.append("\(request.method) \(response.status) in \(duration)")
            }
        }
        let client = RestingClient(
            baseUrl: baseUrl,
            interceptors: [
                EventMonitorInterceptor(events),
                DefaultsInterceptor(
                    headers: ["X-Client": "readme/1.0"], queryItems: [URLQueryItem(name: "locale", value: "fr")]),
                RequestRewriter { request in
                    var request = request
                    request.headers["X-Request-Id"] = UUID().uuidString
                    return request
                },
                ValidationInterceptor([.statusCodes(200..<300), .contentTypeMatchesAccept]),
            ])
        // end snippet
        let echo = Endpoint<Nothing, EchoedRequest>(.get, "/echo")
        let echoed = try await client.perform(RestingRequest(endpoint: echo)).value.body
        #expect(echoed.values(of: "x-client") == ["readme/1.0"] && echoed.values(of: "x-request-id").count == 1)
        #expect(seen.all.count == 1 && seen.all[0].hasPrefix("GET 200"))
    }

    @Test("mocks and record/replay")
    func testingKit() async throws {
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent("readme-fixtures-\(UUID())")
        defer { try? FileManager.default.removeItem(at: fixtures) }
        let getPostEndpoint = Endpoint<Nothing, PostModel>(.get, "/posts/{{post_id}}")
        // snippet: mocks
        let mocks = MockInterceptor()  // unmatched requests go to the network; `.fail` to forbid that
        let getPostMock = mocks.register(
            getPostEndpoint, try .json(PostModel(id: 1, userId: 1, title: "Mocked", body: "")))
        mocks.register(.post, "/posts", .status(503), .status(201))  // first 503, then 201
        let mockedClient = RestingClient(baseUrl: baseUrl, interceptors: [mocks])
        // end snippet
        #expect(
            try await mockedClient.perform(RestingRequest(endpoint: getPostEndpoint, pathVariables: ["post_id": 5]))
                .value.body.title == "Mocked")
        #expect(getPostMock.callCount == 1)

        // snippet: record-replay
        let recorder = RecordReplayInterceptor(directory: fixtures, mode: .replayOrRecord)  // `.replayOnly` in CI
        let recordingClient = RestingClient(baseUrl: baseUrl, interceptors: [recorder])
        // end snippet
        let first = try await recordingClient.perform(
            RestingRequest(endpoint: getPostEndpoint, pathVariables: ["post_id": 2])
        ).value.body
        let recordings = try FileManager.default.contentsOfDirectory(atPath: fixtures.path)
        #expect(first.title == "Post 2" && recordings.count == 1)

        // snippet: stub-transport
        let stub = StubHTTPClient { received in .text("nothing at \(received.request.url.path)", status: 404) }
        stub.register(.get, "/posts/1", .status(301, headers: ["Location": "/posts/2"]))
        stub.register(.get, "/posts/2", try .json(PostModel(id: 2, userId: 1, title: "Moved", body: "")))
        let stubbedClient = RestingClient(baseUrl: baseUrl, httpClient: stub)
        // end snippet
        let moved = try await stubbedClient.perform(
            RestingRequest(endpoint: getPostEndpoint, pathVariables: ["post_id": 1])
        ).value.body
        #expect(moved.title == "Moved" && stub.received.map(\.request.url.path) == ["/posts/1", "/posts/2"])
    }
}

// snippet: fake-chain
/// Adds a request id, and on a 409 retries once with a fresh one.
struct RequestIdInterceptor: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        var request = request
        request.headers["X-Request-Id"] = UUID().uuidString
        let response = try await execution(request)
        guard response.status == 409 else { return response }
        request.headers["X-Request-Id"] = UUID().uuidString
        return try await execution(request)
    }
}

@Test func requestIdIsRenewedOnConflict() async throws {
    let chain = FakeChain(.status(409), .status(200))
    let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://api.example.com/items")))
    let response = try await chain.run(RequestIdInterceptor(), on: request)
    #expect(response.status == 200 && chain.callCount == 2)
    #expect(Set(chain.requests.compactMap { $0.headers["X-Request-Id"] }).count == 2)
}
// end snippet
