import Foundation
import RestingAuthentication
import RestingCore
import RestingStreaming
import RestingTestSupport
import Testing

/// Streamed responses from image_server through the whole pipeline, on every transport.
@Suite("Streamed responses from image_server", .timeLimit(.minutes(5)))
struct ResponseStreamingTests {
    struct Item: Decodable, Equatable, Sendable {
        let id: Int
        let text: String
    }

    @Test("a cut event stream resumes with Last-Event-ID: every event once, in order", arguments: Transport.allCases)
    func serverSentEventsResume(_ transport: Transport) async throws {
        let seen = Locked<[String?]>([])
        struct Recorder: RestingInterceptor {
            let seen: Locked<[String?]>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                seen.withLock { $0.append(request.headers["Last-Event-ID"]) }
                return try await execution(request)
            }
        }
        let client = try await UploadServer.client(transport, interceptors: [Recorder(seen: seen)])
        let feed = Endpoint<Nothing, ServerSentEvents>(
            .get, "/stream/sse?count=7&interval_ms=1&cut_after=3&retry_ms=10", encoding: .query)
        let events = try await client.perform(RestingRequest(endpoint: feed)).value.body
        var items: [Item] = []
        for try await event in events.reconnecting(.init(maximumAttempts: 3)) {
            items.append(try event.decode(Item.self))
        }
        #expect(items.map(\.id) == Array(1...7))
        #expect(
            seen.withLock { $0 } == [nil, "3", "6", "7"], "cut after 3 and 6; the last reconnection is answered 204")
    }

    @Test(
        "a streaming call refreshes its credential on a 401 and retries a 503 before the caller reads",
        arguments: Transport.allCases)
    func authenticationAndRetry(_ transport: Transport) async throws {
        /// Starts with a revoked token; a refresh asks image_server for a new one.
        struct Tokens: CredentialProvider {
            let issuer: RestingClient
            func credential() async throws -> String { "Bearer revoked" }
            func refreshedCredential(after rejected: String) async throws -> String {
                struct Issued: Decodable { let token: String }
                let issue = Endpoint<Nothing, Issued>(.post, "/auth/token", encoding: .json)
                return "Bearer " + (try await issuer.perform(RestingRequest(endpoint: issue)).value.body.token)
            }
        }
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        let issuer = try await UploadServer.client(transport)
        let client = try await UploadServer.client(
            transport,
            interceptors: [RetryInterceptor(policy: policy), AuthInterceptor(provider: Tokens(issuer: issuer))])
        let me = Endpoint<Nothing, ResponseLines>(.get, "/auth/me", encoding: .query)
        var lines: [String] = []
        for try await line in try await client.perform(RestingRequest(endpoint: me)).value.body { lines.append(line) }
        #expect(lines == [#"{"user": "demo"}"#])

        let key = UUID().uuidString
        let flaky = Endpoint<Nothing, ResponseLines>(.get, "/flaky/\(key)?failures=2", encoding: .query)
        let response = try await client.perform(RestingRequest(endpoint: flaky)).value
        #expect(response.status == 200)
        var body: [String] = []
        for try await line in response.body { body.append(line) }
        #expect(body == [#"{"key": "\#(key)", "attempts": 3}"#])
    }

    @Test("NDJSON arrives as typed values", arguments: Transport.allCases)
    func ndjson(_ transport: Transport) async throws {
        let client = try await UploadServer.client(transport)
        let feed = Endpoint<Nothing, JSONLines<Item>>(.get, "/stream/ndjson?count=5&interval_ms=1", encoding: .query)
        var items: [Item] = []
        for try await item in try await client.perform(RestingRequest(endpoint: feed)).value.body { items.append(item) }
        #expect(items == (1...5).map { Item(id: $0, text: "item \($0)") })
    }

    @Test("bytes arrive whole and in order however they are cut", arguments: Transport.allCases)
    func bytes(_ transport: Transport) async throws {
        let client = try await UploadServer.client(transport)
        let size = 3 * 1024 * 1024 + 17
        let bytes = Endpoint<Nothing, ResponseBodyStream>(
            .get, "/stream/bytes?size=\(size)&chunk=10007", encoding: .query)
        var pattern = BytePattern()
        for try await chunk in try await client.perform(RestingRequest(endpoint: bytes)).value.body {
            pattern.continues(with: chunk)
        }
        #expect(pattern.received == size)
        #expect(pattern.isIntact)
    }
}
