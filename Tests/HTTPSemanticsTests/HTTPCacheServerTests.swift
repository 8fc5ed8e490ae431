import Foundation
import RestingCache
import RestingCore
import RestingServerHarness
import Testing

/// The HTTP cache against image_server on every transport, asserting what reached the server through its hit
/// counter (`/cache-hits/{key}`).
@Suite("HTTP cache against image_server", .timeLimit(.minutes(3)))
struct HTTPCacheServerTests {
    struct Resource: Decodable, Sendable, Equatable {
        let key: String
        let version: Int
        let variant: String
    }
    struct Hits: Decodable, Sendable, Equatable {
        let requests: Int
        let conditional: Int
        let notModified: Int

        enum CodingKeys: String, CodingKey {
            case requests, conditional
            case notModified = "not_modified"
        }
    }

    func resource(_ key: String, _ query: String) -> Endpoint<Nothing, Resource> {
        Endpoint(.get, "/cache/\(key)?\(query)", encoding: .query)
    }

    func hits(_ key: String, _ transport: Transport) async throws -> Hits {
        let plain = try await transport.client(networkInterceptors: [])
        return try await plain.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Hits>(.get, "/cache-hits/\(key)", encoding: .query))
        ).value.body
    }

    func client(_ transport: Transport, _ cache: HTTPCacheInterceptor) async throws -> RestingClient {
        try await transport.client(networkInterceptors: [cache])
    }

    @Test("a fresh response: the second GET costs zero requests", arguments: Transport.network)
    func freshHit(_ transport: Transport) async throws {
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        let first = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        let second = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        #expect(first.body == second.body && first.cacheStatus == .miss && second.cacheStatus == .hit)
        #expect(try await hits(key, transport) == Hits(requests: 1, conditional: 0, notModified: 0))
    }

    @Test("revalidation: one conditional request answered 304, the stored body served", arguments: Transport.network)
    func revalidation(_ transport: Transport) async throws {
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        for query in ["no_cache=1&etag=1", "no_cache=1&last_modified=1"] {
            let first = try await client.perform(RestingRequest(endpoint: resource(key, query))).value
            let second = try await client.perform(RestingRequest(endpoint: resource(key, query))).value
            #expect(second.cacheStatus == .revalidated && second.status == 200 && second.body == first.body)
        }
        #expect(
            try await hits(key, transport) == Hits(requests: 4, conditional: 2, notModified: 2),
            "by ETag (If-None-Match), then by date (If-Modified-Since)")
    }

    @Test(
        "Vary on a request header: a stored variant is served only to requests with the same value",
        arguments: Transport.network)
    func vary(_ transport: Transport) async throws {
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        let endpoint = resource(key, "max_age=3600&vary=Accept-Language")
        for language in ["fr", "fr", "de", "de", "fr"] {
            let response = try await client.perform(
                RestingRequest(endpoint: endpoint, headers: ["Accept-Language": language])
            ).value
            #expect(response.body.variant == language)
        }
        #expect(
            try await hits(key, transport).requests == 3,
            "fr, then de replacing it (one variant per URL, as browsers keep), then fr")
    }

    @Test("no-store is never stored; a POST invalidates what was", arguments: Transport.network)
    func noStoreAndInvalidation(_ transport: Transport) async throws {
        let secret = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        for _ in 0..<2 {
            _ = try await client.perform(RestingRequest(endpoint: resource(secret, "no_store=1&max_age=3600"))).value
        }
        #expect(try await hits(secret, transport).requests == 2)

        let key = UUID().uuidString
        _ = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.post, "/cache/\(key)?max_age=3600", encoding: .json))
        ).value
        let after = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        #expect(after.body.version == 2 && after.cacheStatus == .miss, "the update is seen at once")
        #expect(try await hits(key, transport).requests == 2)
    }

    @Test("only-if-cached with nothing stored: a 504 from the cache, nothing sent", arguments: Transport.network)
    func onlyIfCached(_ transport: Transport) async throws {
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        do {
            _ = try await client.perform(
                RestingRequest(endpoint: resource(key, "max_age=3600"), headers: ["Cache-Control": "only-if-cached"])
            ).value
            Issue.record("expected a 504")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 504)
        }
        #expect(try await hits(key, transport).requests == 0)
    }

    @Test(
        "stale-if-error: with the server gone (connection refused), the stale response is served",
        arguments: Transport.network)
    func staleIfErrorWhenRefused(_ transport: Transport) async throws {
        let server = try await LocalServer.start(script: LocalServer.imageServerScript)
        let clock = Locked(Date())
        let cache = HTTPCacheInterceptor(store: MemoryCacheStore(), now: { clock.withLock { $0 } })
        let network = try await transport.client(networkInterceptors: [])
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: network.httpClient, networkInterceptors: [cache])
        let endpoint = resource("offline", "max_age=1&stale_if_error=600")
        let online = try await client.perform(RestingRequest(endpoint: endpoint)).value
        await server.stopAndWait()
        // Its port held at once, refusing: a server another test starts cannot take it and answer.
        let refusing = try RefusingPort(port: server.port)
        defer { refusing.release() }
        clock.withLock { $0 += 30 }
        let offline = try await client.perform(RestingRequest(endpoint: endpoint)).value
        #expect(offline.body == online.body && offline.cacheStatus == .staleOnError)
        do {
            _ = try await client.perform(RestingRequest(endpoint: resource("never-stored", "max_age=1"))).value
            Issue.record("expected the connection failure")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .connectionFailed)
        }
    }

    @Test(
        "eviction under a size limit: the least recently used goes and costs a request again",
        arguments: Transport.network)
    func eviction(_ transport: Transport) async throws {
        let keys = (0..<3).map { _ in UUID().uuidString }
        // Each response costs about 2.5 KB with its headers: two fit, not three.
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore(capacity: 6_000)))
        for key in keys + [keys[0]] {
            _ = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600&size=2000"))).value
        }
        #expect(try await hits(keys[0], transport).requests == 2, "evicted by the third, fetched again")
        _ = try await client.perform(RestingRequest(endpoint: resource(keys[2], "max_age=3600&size=2000"))).value
        #expect(try await hits(keys[2], transport).requests == 1, "the most recent stayed")
    }

    @Test("a corrupt disk entry is dropped and fetched again, never served", arguments: Transport.network)
    func corruptDiskEntry(_ transport: Transport) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rk-http-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: try DiskCacheStore(directory: directory)))
        let first = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".entry")
        }
        #expect(entries.count == 1)
        let file = directory.appendingPathComponent(entries[0])
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: file)
        let second = try await client.perform(RestingRequest(endpoint: resource(key, "max_age=3600"))).value
        #expect(second.body == first.body && second.cacheStatus == .miss)
        #expect(try await hits(key, transport).requests == 2)
    }

    @Test(
        "100 concurrent GETs of a cold resource with the cache on: each answered correctly, then served from the store",
        arguments: Transport.network)
    func concurrentColdGets(_ transport: Transport) async throws {
        let key = UUID().uuidString
        let client = try await client(transport, HTTPCacheInterceptor(store: MemoryCacheStore()))
        let endpoint = resource(key, "max_age=3600&etag=1")
        let bodies = try await withThrowingTaskGroup(of: Resource.self) { group in
            for _ in 0..<100 {
                group.addTask { try await client.perform(RestingRequest(endpoint: endpoint)).value.body }
            }
            return try await group.reduce(into: [Resource]()) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: Resource(key: key, version: 1, variant: ""), count: 100))
        let served = try await hits(key, transport).requests
        #expect(try await client.perform(RestingRequest(endpoint: endpoint)).value.cacheStatus == .hit)
        #expect(try await hits(key, transport).requests == served, "the store answered the 101st")
    }
}
