import Foundation
import RestingCore
import RestingServerHarness
import RestingStreaming
import RestingTestSupport
import RestingURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionClient.shutdown` against the conformance server (see the curl transport's shutdown tests).
@Suite("URLSessionClient shutdown", .timeLimit(.minutes(5)))
struct URLSessionShutdownTests {
    func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    /// A session whose own idle timeout cannot end a call first: only the shutdown may (under a sanitizer's load a
    /// held stream can sit idle past the default 60 s).
    func transportWithoutIdleTimeout() -> URLSessionClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 3600
        return URLSessionClient(configuration: configuration)
    }

    @Test("a stream in flight is waited for, new calls fail .shutDown, then the session is invalidated")
    func gracefulShutdownWaitsForTheStream() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = transportWithoutIdleTimeout()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tag = UUID().uuidString
        let body = try await client.perform(
            RestingRequest(
                endpoint: Endpoint<Nothing, ResponseLines>(.get, "/gated?tag=\(tag)&count=2", encoding: .query))
        ).value.body

        let finished = Locked(false)
        let shutdown = Task {
            await transport.shutdown()
            finished.withLock { $0 = true }
        }
        // The shutdown has begun once a call is refused.
        while true {
            do {
                _ = try await client.perform(get("/bytes/8")).value
                await Task.yield()
            } catch {
                #expect(isRestingError(error, "shutDown"))
                break
            }
        }
        #expect(!finished.withLock { $0 }, "the stream is still being read")
        _ = try await RestingClient(baseUrl: server.baseURL, httpClient: URLSessionClient.shared)
            .perform(get("/release?tag=\(tag)")).value
        var lines: [String] = []
        for try await line in body { lines.append(line) }
        #expect(lines == ["part 0", "part 1"])
        await shutdown.value
        await #expect { try await client.perform(get("/bytes/8")).value } throws: { isRestingError($0, "shutDown") }
    }

    @Test("after the grace period a call still running is cancelled, and the shutdown returns")
    func gracePeriodCancels() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = transportWithoutIdleTimeout()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tag = UUID().uuidString
        let delayed = client.perform(get("/delay/120000?tag=\(tag)"))
        try await server.waitUntilDelaying(tag: tag)
        await transport.shutdown(gracePeriod: .milliseconds(50))
        await #expect { try await delayed.value } throws: { isRestingError($0, "cancelled") }
    }

    @Test("the shared client belongs to the process: its shutdown does nothing; withURLSessionClient's client ends")
    func sharedAndScoped() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        await URLSessionClient.shared.shutdown()
        let shared = RestingClient(baseUrl: server.baseURL, httpClient: URLSessionClient.shared)
        #expect(try await shared.perform(get("/bytes/8")).value.status == 200)

        let (transport, status) = try await URLSessionClient.withURLSessionClient(configuration: .ephemeral) {
            transport in
            (
                transport,
                try await RestingClient(baseUrl: server.baseURL, httpClient: transport).send(get("/bytes/8")).status
            )
        }
        #expect(status == 200)
        await #expect {
            try await RestingClient(baseUrl: server.baseURL, httpClient: transport).send(get("/bytes/8"))
        } throws: { isRestingError($0, "shutDown") }
    }
}
