import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCache
@testable import RestingCore
@testable import RestingResilience
@testable import RestingStreaming

/// What a hostile review of the capability split found (placement, ResilienceLinks, CapabilityEvent, CallFailure),
/// as the behaviour that now holds: each of these failed on the reviewed commit.
@Suite("The capability split under a hostile review")
struct CapabilitySplitHostileTests {
    let base = "https://api.example.com"

    func configurationError(_ interceptors: [any RestingInterceptor], network: [any RestingInterceptor] = [])
        -> RestingError?
    {
        RestingClient(
            baseUrl: base, httpClient: StubHTTPClient(), interceptors: interceptors, networkInterceptors: network
        ).configurationError
    }

    // MARK: - ResilienceLinks spans the ranks of its links

    @Test("a link placed before ResilienceLinks that belongs inside it is refused, and the chain sends nothing")
    func linkBeforeComposedLinksIsRefused() async throws {
        // The same misorder, spelled with single links, is refused: the deadline must stand before the retry.
        #expect(
            configurationError([RetryInterceptor(), DeadlineInterceptor(callTimeout: .seconds(1))])?.errorType
                == "interceptorMisuse")
        // Spelled with ResilienceLinks, the deadline (rank 0) and the breaker (rank 1) end up INSIDE the retry.
        let misordered: [[any RestingInterceptor]] = [
            [
                RetryInterceptor(),
                ResilienceLinks(
                    deadline: DeadlineInterceptor(callTimeout: .seconds(1)),
                    rateLimit: RateLimitInterceptor(limit: .init(requests: 10, per: .seconds(1)))),
            ],
            [
                RetryInterceptor(),
                ResilienceLinks(breaker: CircuitBreakerInterceptor(), concurrency: ConcurrencyLimitInterceptor()),
            ],
            [
                ResilienceLinks(breaker: CircuitBreakerInterceptor(), retry: RetryInterceptor()),
                ResilienceLinks(deadline: DeadlineInterceptor(callTimeout: .seconds(1)), hedging: HedgingInterceptor()),
            ],
        ]
        for chain in misordered {
            let names = chain.map { String(describing: type(of: $0)) }
            #expect(configurationError(chain)?.errorType == "interceptorMisuse", "accepted: \(names)")
        }
        // And the misordered chain really runs: the request reaches the transport.
        let stub = StubHTTPClient()
        stub.register(.get, "/items", .status(200))
        let client = RestingClient(baseUrl: base, httpClient: stub, interceptors: misordered[0])
        _ = try? await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/items")))
        #expect(stub.received.isEmpty, "a misordered chain sent \(stub.received.count) request(s)")
    }

    @Test("an empty ResilienceLinks stands in no order: after a RetryInterceptor it is accepted")
    func emptyComposedLinksAccepted() {
        let error = configurationError([RetryInterceptor(), ResilienceLinks()])
        #expect(error == nil, "a composition of no links was refused: \(String(describing: error))")
    }

    // MARK: - The cache stands after every link that adds a credential

    /// A credential provider whose token the app switches (sign-out, sign-in as someone else).
    final class SwitchableToken: CredentialProvider {
        let token = Locked("Bearer alice-token")
        func credential() async throws -> String { token.withLock { $0 } }
        func refreshedCredential(after rejected: String) async throws -> String { throw RestingError.cancelled }
    }

    /// A server answering `/me` with whoever the Authorization names, cacheable for a minute.
    static func identityServer() -> StubHTTPClient {
        StubHTTPClient { received in
            let who = received.request.headers["Authorization"] ?? "anonymous"
            return .status(
                200, headers: ["Cache-Control": "private, max-age=60", "Content-Type": "text/plain"],
                body: Data("profile of \(who)".utf8))
        }
    }

    func profile(_ client: RestingClient) async throws -> String {
        let response = try await client.send(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/me", encoding: .query)))
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test("a cache before AuthInterceptor is refused: it would serve Alice's response to Bob")
    func cacheBeforeAuthInterceptorServesAnotherIdentity() async throws {
        let tokens = SwitchableToken()
        let server = Self.identityServer()
        let client = RestingClient(
            baseUrl: base, httpClient: server,
            interceptors: [HTTPCacheInterceptor(store: MemoryCacheStore()), AuthInterceptor(provider: tokens)])
        #expect(client.configurationError?.errorType == "interceptorMisuse")
        await #expect(throws: client.configurationError ?? .cancelled) { try await profile(client) }
        // In its place, after the credential, the cache keys on it: Bob, sharing Alice's store, gets his own profile.
        let store = MemoryCacheStore()
        func signedIn(_ token: String) -> RestingClient {
            RestingClient(
                baseUrl: base, httpClient: server,
                interceptors: [AuthInterceptor.bearer(token: token), HTTPCacheInterceptor(store: store)])
        }
        #expect(try await profile(signedIn("alice-token")) == "profile of Bearer alice-token")
        #expect(try await profile(signedIn("bob-token")) == "profile of Bearer bob-token")
    }

    @Test(
        "a client with its cache before AuthInterceptor is refused, so a store it shares never holds a credential's answer for anonymous clients"
    )
    func anonymousClientServedCredentialedResponse() async throws {
        let store = MemoryCacheStore()
        let server = Self.identityServer()
        let authorised = RestingClient(
            baseUrl: base, httpClient: server,
            networkInterceptors: [HTTPCacheInterceptor(store: store), AuthInterceptor.bearer(token: "alice-token")])
        let anonymous = RestingClient(
            baseUrl: base, httpClient: server, networkInterceptors: [HTTPCacheInterceptor(store: store)])
        #expect(authorised.configurationError?.errorType == "interceptorMisuse")
        #expect(anonymous.configurationError == nil)
        await #expect(throws: authorised.configurationError ?? .cancelled) { try await profile(authorised) }
        #expect(try await profile(anonymous) == "profile of anonymous")
    }

    // MARK: - A capability failure keeps its name in the event stream

    @Test(
        "a reconnecting SSE reader that fails with StreamElementTooLarge ends its call as callFailed(streamElementTooLarge), not callEnded(200)"
    )
    func oversizedEventEndsCallAsSuccess() async throws {
        let recorder = EventRecorder()
        let stub = StubHTTPClient()
        stub.register(
            .get, "/events",
            .stream(
                [.text("data: " + String(repeating: "x", count: 64) + "\n\n")],
                headers: ["Content-Type": "text/event-stream"]))
        let client = RestingClient(baseUrl: base, httpClient: stub, eventListener: .shared(recorder))
        let body = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, ServerSentEvents>(.get, "/events", encoding: .query))
        ).value.body
        var iterator = body.maximumEventSize(16).reconnecting(.init(maximumAttempts: 2)).makeAsyncIterator()
        await #expect(throws: StreamElementTooLarge(limit: 16)) { _ = try await iterator.next() }
        let terminal = recorder.kinds.filter(\.isTerminal)
        #expect(
            terminal.count == 1
                && {
                    if case .callFailed("streamElementTooLarge", _) = terminal[0] { return true }
                    return false
                }(), "terminal events: \(terminal)")
    }

    // MARK: - ReportedCapabilityEvent equality

    class BaseEvent: CapabilityEvent, @unchecked Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
        static func == (lhs: BaseEvent, rhs: BaseEvent) -> Bool { lhs.value == rhs.value }
    }
    final class DerivedEvent: BaseEvent, @unchecked Sendable {}

    @Test("ReportedCapabilityEvent equality is symmetric: a class event and its subclass's are never equal")
    func equalityIsSymmetric() {
        let base = CallEvent.Kind.capability(BaseEvent(1))
        let derived = CallEvent.Kind.capability(DerivedEvent(1))
        #expect(
            (base == derived) == (derived == base),
            "base == derived: \(base == derived), derived == base: \(derived == base)")
        #expect(base != derived, "events of two types compare equal")
    }
}
