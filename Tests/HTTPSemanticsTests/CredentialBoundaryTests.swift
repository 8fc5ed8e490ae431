import Foundation
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCache
@testable import RestingCookies
@testable import RestingCore
@testable import RestingOffline
@testable import RestingPagination
@testable import RestingStreaming

/// The credential boundary on the wire: whatever path a request takes — a redirect, a followed link, a replay, a
/// network interceptor on another hop, a cached answer — a credential reaches only the origin it was issued for,
/// as a server on three origins records.
@Suite("The credential boundary on the wire", .timeLimit(.minutes(5)))
struct CredentialBoundaryTests {
    struct Item: Codable, Sendable { let id: Int }

    /// The header names this suite's credentials travel under.
    static let credentialNames = [
        "Authorization", "X-Forwarded-Authorization", "X-Api-Key", "X-Tenant-Secret", "Cookie",
    ]

    /// A folder of its own for one test's store, named `<prefix>-<UUID>`.
    static func temporaryDirectory(_ prefix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())")
    }

    func query(_ pairs: KeyValuePairs<String, String>) -> [URLQueryItem] {
        pairs.map { URLQueryItem(name: $0.key, value: $0.value) }
    }

    @Test(
        "#1 a list redirected to another origin that links to itself there: the link is refused, no page there gets the token",
        arguments: Transport.network)
    func paginationJudgesLinksByTheCallsOrigin(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let (api, elsewhere) = (server.origins[0], server.origins[1])
        let tag = "pages-\(transport)"
        let landing = RecordingServer.url(elsewhere, "/\(tag)/items", ["link": "\(elsewhere)/\(tag)/page2"])
        let client = RestingClient(
            baseUrl: api, httpClient: try transport.networkClient,
            interceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        let list = Endpoint<Nothing, [Item]>(.get, "/\(tag)/items", encoding: .query)
        var pages = 0
        do {
            for try await _ in client.pages(
                of: list, queryItems: query(["status": "302", "location": landing]), pagination: .linkHeader)
            {
                pages += 1
            }
            Issue.record("expected the link to another origin to be refused")
        } catch RestingError.invalidURL(_, let reason) {
            #expect(reason.contains("another origin"))
        }
        let log = try await server.log(tag)
        #expect(pages == 1)
        #expect(log.map(\.origin) == [api, elsewhere], "the list, then its redirect; never page 2")
        #expect(log.filter { $0.origin != api }.allSatisfy { $0.values(of: "Authorization").isEmpty })
    }

    @Test("#2 an offline entry replays its call's meaning: no token where the endpoint needs none, its own base URL")
    func offlineReplayKeepsAttributesAndBaseURL() async throws {
        let server = try await RecordingServer.shared.value
        let (api, thirdParty, elsewhere) = (server.origins[0], server.origins[1], server.origins[2])
        let tag = "offline"
        let directory = Self.temporaryDirectory("outbox")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let upload = Endpoint<Data, Data>(
            .put, "\(thirdParty)/\(tag)/upload", encoding: .raw(contentType: "application/octet-stream")
        ).setting(\.requiresAuthentication, false)
        try queue.enqueue(RestingRequest(endpoint: upload, body: Data("photo".utf8)), baseUrl: api)
        try queue.enqueue(
            RestingRequest(
                endpoint: Endpoint<Data, Data>(.post, "/\(tag)/notes", encoding: .raw(contentType: "text/plain")),
                body: Data("hi".utf8)),
            baseUrl: api)
        // By the time the network is back, the app has switched its client to another environment.
        let client = RestingClient(
            baseUrl: elsewhere, httpClient: try Transport.curl.networkClient,
            interceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        let report = try await queue.replay(with: client)
        #expect(report.sent == 2 && report.stoppedBy == nil)
        let log = try await server.log(tag)
        #expect(log.map(\.origin) == [thirdParty, api], "each to where its call was addressed")
        #expect(log.first?.values(of: "Authorization") == [], "the third party never sees the app's token")
        #expect(log.last?.values(of: "Authorization") == ["Bearer s3cr3t"], "the API still does")
    }

    @Test(
        "#3 a cached response is served to no other identity, nor to an anonymous request", arguments: Transport.network
    )
    func cacheNeverCrossesIdentities(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let tag = "identities-\(transport)"
        let cache = HTTPCacheInterceptor(store: MemoryCacheStore())
        func client(_ token: String?) throws -> RestingClient {
            RestingClient(
                baseUrl: server.origins[0], httpClient: try transport.networkClient,
                interceptors: token.map { [AuthInterceptor.bearer(token: $0)] } ?? [], networkInterceptors: [cache])
        }
        let me = Endpoint<Nothing, Data>(.get, "/\(tag)/me", encoding: .query)
        let request = RestingRequest(endpoint: me, queryItems: query(["cc": "max-age=3600", "body": "private"]))
        let alice = try await client("alice").perform(request).value
        let aliceAgain = try await client("alice").perform(request).value
        let bob = try await client("bob").perform(request).value
        let anonymous = try await client(nil).perform(request).value
        #expect(alice.cacheStatus == .miss && aliceAgain.cacheStatus == .hit, "the same identity is served")
        #expect(bob.cacheStatus == .miss && anonymous.cacheStatus == .miss)
        #expect(
            try await server.log(tag).map { $0.values(of: "Authorization") }
                == [["Bearer alice"], ["Bearer bob"], []])
    }

    @Test("#3 a disk store keeps no credentialed response unless it opts in; #5 and then no credential in its files")
    func diskCacheAndCredentials() async throws {
        let server = try await RecordingServer.shared.value
        let tag = "disk"
        let directory = Self.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let me = Endpoint<Nothing, Data>(.get, "/\(tag)/me", encoding: .query)
        let request = RestingRequest(
            endpoint: me, queryItems: query(["cc": "max-age=3600", "vary": "Authorization", "sig": "query-secret"]))
        for optIn in [false, true] {
            let store = try DiskCacheStore(directory: directory, storesCredentialedResponses: optIn)
            let client = RestingClient(
                baseUrl: server.origins[0], httpClient: try Transport.curl.networkClient,
                interceptors: [AuthInterceptor.bearer(token: "t0k3n-on-disk")],
                networkInterceptors: [HTTPCacheInterceptor(store: store)])
            _ = try await client.perform(request).value
            let again = try await client.perform(request).value
            #expect(again.cacheStatus == (optIn ? .hit : .miss))
            #expect((store.size > 0) == optIn)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".entry")
        }
        #expect(files.count == 1)
        for file in files {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            for secret in ["t0k3n-on-disk", "query-secret", "/\(tag)/me", "Bearer"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) written in clear")
            }
            // Nor a plain digest of it, which a guessed token could be checked against offline: the Vary value kept
            // in place of the credential is keyed.
            let plainDigest = SHA256.hex(Data("Bearer t0k3n-on-disk".utf8))
            #expect(bytes.range(of: Data(plainDigest.utf8)) == nil, "an unkeyed digest of the credential on disk")
            #expect(bytes.range(of: Data("hmac-sha256:".utf8)) != nil, "the Vary value is kept keyed")
        }
    }

    /// A store that keeps what it is given in another and remembers it, for the tests to read.
    final class WitnessStore: HTTPCacheStore {
        let inner: any HTTPCacheStore
        let stored = Collector<CachedResponse>()
        init(_ inner: any HTTPCacheStore) { self.inner = inner }
        func response(for key: String) -> CachedResponse? { inner.response(for: key) }
        func store(_ response: CachedResponse, for key: String) {
            stored.append(response)
            inner.store(response, for: key)
        }
        func removeResponse(for key: String) { inner.removeResponse(for: key) }
        func removeAll() { inner.removeAll() }
        var performsBlockingIO: Bool { inner.performsBlockingIO }
        var storesCredentialedResponses: Bool { inner.storesCredentialedResponses }
    }

    @Test("#4 a Set-Cookie on a 304 reaches the jar for that exchange but is never stored, on disk or in memory")
    func notModifiedCookiesAreNotStored() async throws {
        let server = try await RecordingServer.shared.value
        let tag = "not-modified"
        let directory = Self.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = WitnessStore(try DiskCacheStore(directory: directory))
        let jar = InMemoryCookieJar()
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try Transport.curl.networkClient,
            networkInterceptors: [CookieInterceptor(jar: jar), HTTPCacheInterceptor(store: store)])
        let resource = Endpoint<Nothing, Data>(.get, "/\(tag)/resource", encoding: .query)
        let request = RestingRequest(
            endpoint: resource, queryItems: query(["cc": "max-age=0", "etag": "\"v1\"", "setcookie304": "session=s1"]))
        _ = try await client.perform(request).value
        let revalidated = try await client.perform(request).value
        #expect(revalidated.cacheStatus == .revalidated)
        // The cookie's default path is the request's directory.
        #expect(
            await jar.cookies(for: try #require(URL(string: "\(server.origins[0])/\(tag)/x"))).map(\.value) == ["s1"])
        #expect(store.stored.all.count == 2, "stored, then updated by the 304")
        #expect(store.stored.all.allSatisfy { $0.headers["Set-Cookie"] == nil })
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".entry") {
            #expect(try Data(contentsOf: directory.appendingPathComponent(file)).range(of: Data("s1".utf8)) == nil)
        }
    }

    @Test(
        "#6 an AuthInterceptor among network interceptors gives no token to a hop on another origin",
        arguments: Transport.network)
    func networkAuthInterceptorOnARedirectedHop(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let tag = "network-auth-\(transport)"
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try transport.networkClient,
            networkInterceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        let start = Endpoint<Nothing, Data>(.get, "/\(tag)/start", encoding: .query)
        _ = try await client.perform(
            RestingRequest(
                endpoint: start,
                queryItems: query(["status": "302", "location": "\(server.origins[1])/\(tag)/landing"]))
        ).value
        let log = try await server.log(tag)
        #expect(log.map { $0.values(of: "Authorization") } == [["Bearer s3cr3t"], []])
    }

    @Test("#7 a provider's sensitive header set again by a request stays sensitive: it does not follow a redirect")
    func sensitivitySurvivesBeingSetAgain() async throws {
        let server = try await RecordingServer.shared.value
        let tag = "sticky"
        let provider = RestingHeaderProvider()
        provider.addHeader(key: "X-Tenant-Secret", value: "from-provider", sensitive: true)
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try Transport.curl.networkClient,
            requestConverter: RestingRequestConverter(configuration: .init(headerProvider: provider)))
        let start = Endpoint<Nothing, Data>(.get, "/\(tag)/start", encoding: .query)
        _ = try await client.perform(
            RestingRequest(
                endpoint: start, headers: ["X-Tenant-Secret": "per-request"],
                queryItems: query(["status": "307", "location": "\(server.origins[1])/\(tag)/landing"]))
        ).value
        let log = try await server.log(tag)
        #expect(log.map { $0.values(of: "X-Tenant-Secret") } == [["per-request"], []])
    }

    @Test(
        "#10 a cookie set by a redirect's target is stored for that host, not the first request's (application interceptor)",
        arguments: Transport.network)
    func cookiesAreStoredForTheHostThatSetThem(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let tag = "fixation-\(transport)"
        let jar = InMemoryCookieJar()
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try transport.networkClient,
            interceptors: [CookieInterceptor(jar: jar)])
        let landing = RecordingServer.url(server.otherHost, "/\(tag)/landing", ["setcookie": "sid=attacker"])
        _ = try await client.perform(
            RestingRequest(
                endpoint: Endpoint<Nothing, Data>(.get, "/\(tag)/start", encoding: .query),
                queryItems: query(["status": "302", "location": landing]))
        ).value
        // (The cookie's default path is the request's directory.)
        #expect(await jar.cookies(for: try #require(URL(string: "\(server.origins[0])/\(tag)/x"))).isEmpty)
        #expect(
            await jar.cookies(for: try #require(URL(string: "\(server.otherHost)/\(tag)/x"))).map(\.value)
                == ["attacker"])
    }

    @Test("#8 cancelAll() or the promise's cancel() during a reconnection's wait ends the events; nothing more is sent")
    func cancellingDuringTheReconnectionWait() async throws {
        let server = try await RecordingServer.shared.value
        for cancel in ["all", "promise"] {
            let tag = "sse-cancel-\(cancel)"
            let client = RestingClient(baseUrl: server.origins[0], httpClient: try Transport.curl.networkClient)
            let events = Endpoint<Nothing, ServerSentEvents>(.get, "/\(tag)/events", encoding: .query)
            // One event, then the server closes and asks for a reconnection in two seconds.
            let promise = client.perform(
                RestingRequest(endpoint: events, queryItems: query(["events": "1", "retry": "2000"])))
            var iterator = try await promise.value.body.reconnecting(.init(maximumAttempts: 3)).makeAsyncIterator()
            #expect(try await iterator.next()?.data == "event 1")
            let reader = Task { [iterator] in
                var iterator = iterator
                return try await iterator.next()
            }
            if cancel == "all" { client.cancelAll() } else { promise.cancel() }
            do {
                let event = try await reader.value
                Issue.record("\(cancel): expected the events to end in cancellation, got \(String(describing: event))")
            } catch RestingError.cancelled {}
            #expect(try await server.log(tag).count == 1, "\(cancel): no reconnection after the cancel")
            #expect(client.calls.count == 0, "\(cancel): nothing left registered")
        }
    }

    @Test("a reconnection of a cacheable event stream reaches the server: a live stream is never cached")
    func eventStreamsAreNotCached() async throws {
        let server = try await RecordingServer.shared.value
        let tag = "sse-cache"
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try Transport.curl.networkClient,
            networkInterceptors: [HTTPCacheInterceptor(store: MemoryCacheStore())])
        let events = Endpoint<Nothing, ServerSentEvents>(.get, "/\(tag)/events", encoding: .query)
        let response = try await client.perform(
            RestingRequest(endpoint: events, queryItems: query(["events": "1", "retry": "0", "cc": "max-age=3600"]))
        ).value
        var received: [String] = []
        for try await event in response.body.reconnecting(.init(maximumAttempts: 2, minimumDelay: .milliseconds(1))) {
            received.append(event.data)
            if received.count == 3 { break }
        }
        #expect(received == ["event 1", "event 2", "event 3"], "each reconnection continues after Last-Event-ID")
        #expect(try await server.log(tag).map { $0.values(of: "Last-Event-ID") } == [[], ["1"], ["2"]])
    }
}
