import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingLogging

/// Per-request options: attributes set on an endpoint or a request, read by the library's own interceptors;
/// a per-endpoint decoder; a base URL that changes while calls run.
@Suite("Per-request options")
struct RequestOptionsTests {
    enum TenantKey: RequestAttributeKey { static let defaultValue: String? = nil }

    @Test("a request's attributes win over its endpoint's, and a custom key reads its default until set")
    func attributesMerge() throws {
        var endpoint = Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query).setting(\.maximumAttempts, 5)
        endpoint.attributes[TenantKey.self] = "acme"
        #expect(try convert(RestingRequest(endpoint: endpoint)).attributes.maximumAttempts == 5)

        var request = RestingRequest(endpoint: endpoint)
        request.attributes.maximumAttempts = 1
        request.attributes.logLevel = .verbose
        let converted = try convert(request)
        #expect(converted.attributes.maximumAttempts == 1)
        #expect(converted.attributes.logLevel == .verbose)
        #expect(converted.attributes[TenantKey.self] == "acme", "the endpoint's other attributes stay")
        #expect(converted.attributes.requiresAuthentication, "defaults hold for keys nobody set")
        #expect(RequestAttributes()[TenantKey.self] == nil)
    }

    @Test("the token endpoint is marked as needing no auth and works on the same client as the API it unlocks")
    func authSkipsTokenEndpoint() async throws {
        struct Token: Codable, Sendable { let token: String }
        /// Fetches its credential through the very client it authenticates.
        /// Weak: the client holds this provider through its `AuthInterceptor`.
        struct WeakClient: Sendable { weak var client: RestingClient? }
        struct ClientTokens: CredentialProvider {
            let client = Locked(WeakClient())
            let issue = Endpoint<Nothing, Token>(.post, "/token", encoding: .json).setting(
                \.requiresAuthentication, false)
            func credential() async throws -> String {
                guard let client = client.withLock({ $0.client }) else { throw RestingError.cancelled }
                return "Bearer " + (try await client.perform(RestingRequest(endpoint: issue)).value.body.token)
            }
            func refreshedCredential(after rejected: String) async throws -> String { try await credential() }
        }
        let stub = StubHTTPClient()
        stub.register(.post, "/token", try .json(Token(token: "t1")))
        stub.register(.get, "/posts/1", try .json(samplePost))
        let tokens = ClientTokens()
        let client = makeClient(stub, interceptors: [AuthInterceptor(provider: tokens)])
        tokens.client.withLock { $0.client = client }

        let post = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query))
        ).value
        #expect(post.body == samplePost)
        let sent = stub.received.map(\.request)
        #expect(sent.map(\.url.path) == ["/token", "/posts/1"])
        #expect(
            sent[0].headers["Authorization"] == nil,
            "the token request carries no credential (and did not wait for one)")
        #expect(sent[1].headers["Authorization"] == "Bearer t1")
    }

    @Test("a request's attempt limit overrides the retry policy's")
    func retryAttemptsPerRequest() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/flaky", .status(503), .status(503), .status(503), .status(200))
        var policy = RetryInterceptor.Policy()
        policy.maximumAttempts = 4
        policy.baseDelay = .zero
        let client = makeClient(stub, interceptors: [RetryInterceptor(policy: policy)])
        var once = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/flaky", encoding: .query))
        once.attributes.maximumAttempts = 1
        let error = await restingError { try await client.perform(once).value }
        guard case .httpError(let httpError)? = error else {
            Issue.record("expected a 503, got \(String(describing: error))")
            return
        }
        #expect(httpError.status == 503)
        #expect(stub.received.count == 1, "no retry for a request that allows one attempt")

        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/flaky", encoding: .query))
        ).value
        #expect(stub.received.count == 1 + 3, "the policy's four attempts for the others (two 503s left, then 200)")
    }

    @Test("a request's log level overrides the logging interceptor's, both ways")
    func logLevelPerRequest() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/posts/1", try .json(samplePost), try .json(samplePost), try .json(samplePost))
        let logger = CollectingLogger()
        let client = makeClient(stub, interceptors: [LoggingInterceptor(level: .info, logger: logger)])
        let endpoint = Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query)

        _ = try await client.perform(RestingRequest(endpoint: endpoint, attributes: quiet())).value
        #expect(logger.messages.all.isEmpty, "a polled endpoint can be silenced")
        var verbose = RequestAttributes()
        verbose.logLevel = .verbose
        _ = try await client.perform(RestingRequest(endpoint: endpoint, attributes: verbose)).value
        #expect(logger.messages.all.contains { $0.hasPrefix("[verbose] ┌ → GET") }, "\(logger.messages.all)")
        let count = logger.messages.all.count
        _ = try await client.perform(RestingRequest(endpoint: endpoint)).value
        #expect(logger.messages.all.dropFirst(count).map { $0.prefix(8) } == ["[info] ←"])
    }

    private func quiet() -> RequestAttributes {
        var attributes = RequestAttributes()
        attributes.logLevel = LogLevel.none
        return attributes
    }

    @Test("an endpoint's decoder decodes its responses; other endpoints keep the client's")
    func decoderPerEndpoint() async throws {
        struct Event: Decodable, Sendable { let at: Date }
        let stub = StubHTTPClient()
        stub.register(.get, "/legacy", .text(#"{"at": 1700000000}"#, contentType: "application/json"))
        stub.register(.get, "/modern", .text(#"{"at": "2023-11-14T22:13:20Z"}"#, contentType: "application/json"))
        let iso = JSONDecoder()
        iso.dateDecodingStrategy = .iso8601
        let epoch = JSONDecoder()
        epoch.dateDecodingStrategy = .secondsSince1970
        let client = RestingClient(baseUrl: baseURL, decoder: iso, httpClient: stub)

        let legacy = Endpoint<Nothing, Event>(.get, "/legacy", encoding: .query, decoder: epoch)
        let modern = Endpoint<Nothing, Event>(.get, "/modern", encoding: .query)
        #expect(
            try await client.perform(RestingRequest(endpoint: legacy)).value.body.at
                == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(
            try await client.perform(RestingRequest(endpoint: modern)).value.body.at
                == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("switching the base URL: a call in flight keeps the URL it started with; the next call uses the new one")
    func baseURLSwitch() async throws {
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let transport = ClosureHTTPClient { request in
            if request.url.path == "/slow" {
                enteredContinuation.yield()
                for await _ in release { break }
            }
            return HTTPDataResponse(
                status: 200, body: ResponseBody(Data(#"{"host": "\#(request.url.host ?? "")"}"#.utf8)), url: request.url
            )
        }
        struct Answer: Decodable, Sendable { let host: String }
        let client = RestingClient(baseUrl: "https://production.example.com", httpClient: transport)
        let slow = client.perform(RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, "/slow", encoding: .query)))
        for await _ in entered { break }
        client.baseUrl = "https://staging.example.com"
        let next = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, "/fast", encoding: .query))
        ).value
        releaseContinuation.yield()
        #expect(try await slow.value.body.host == "production.example.com")
        #expect(next.body.host == "staging.example.com")
    }

    @Test(
        "switching the base URL from many tasks while 200 calls run: every call is converted against one whole base URL"
    )
    func baseURLSwitchUnderLoad() async throws {
        let transport = ClosureHTTPClient { request in
            HTTPDataResponse(status: 200, body: ResponseBody(Data()), url: request.url)
        }
        let environments = ["https://production.example.com/v1", "https://staging.example.com/v2"]
        let client = RestingClient(baseUrl: environments[0], httpClient: transport)
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/ping", encoding: .query)
        let urls = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    if index % 10 == 0 {
                        client.baseUrl = environments[index / 10 % 2]
                        return nil
                    }
                    return try await client.perform(RestingRequest(endpoint: endpoint)).value.url?.absoluteString
                }
            }
            return try await group.reduce(into: [String]()) { if let url = $1 { $0.append(url) } }
        }
        #expect(urls.count == 180)
        #expect(Set(urls).isSubset(of: environments.map { $0 + "/ping" }), "\(Set(urls))")
    }
}
