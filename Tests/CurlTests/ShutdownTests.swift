import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingStreaming
import RestingTestSupport
import Testing

/// `CurlClient.shutdown` against the conformance server: `/gated` streams its first part at once and its second once
/// `/release` opens the gate; `/delay` holds its answer.
@Suite("CurlClient shutdown", .timeLimit(.minutes(5)))
struct CurlShutdownTests {
    func gated(_ tag: String) -> RestingRequest<Nothing, ResponseLines> {
        RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/gated?tag=\(tag)&count=2", encoding: .query))
    }

    func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    /// Opens the gate of the `/gated` stream `tag`, through a client of its own.
    func release(_ tag: String, on server: LocalServer) async throws {
        _ = try await RestingClient(baseUrl: server.baseURL, httpClient: try CurlClient())
            .perform(get("/release?tag=\(tag)")).value
    }

    func transport() throws -> CurlClient { try Self.transport() }

    /// A client with two drivers, whose transfers only a shutdown ends.
    static func transport() throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.driverCount = 2
        // Nothing but the shutdown may end these transfers: a loaded sanitizer run can leave a stream or a held call
        // waiting longer than the default idle timeout.
        configuration.idleTimeout = nil
        configuration.minimumTransferRate = nil
        return try CurlClient(configuration: configuration)
    }

    @Test("a stream in flight is waited for; new calls fail .shutDown at once; then every thread has ended")
    func gracefulShutdownWaitsForTheStream() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tag = UUID().uuidString
        let body = try await client.perform(gated(tag)).value.body

        let shutdown = Task { await transport.shutdown() }
        while !transport.isShuttingDown { await Task.yield() }
        await #expect { try await client.perform(get("/bytes/8")).value } throws: { isRestingError($0, "shutDown") }
        // A driver with nothing in flight has ended already; the stream's runs on.
        #expect(transport.drivers.runningDrivers == 1)

        try await release(tag, on: server)
        var lines: [String] = []
        for try await line in body { lines.append(line) }
        #expect(lines == ["part 0", "part 1"])
        await shutdown.value
        #expect(transport.drivers.runningDrivers == 0)
    }

    @Test("after the grace period, a buffered call and a stream still running are cancelled, and the threads end")
    func gracePeriodCancels() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let streamTag = UUID().uuidString
        let delayTag = UUID().uuidString
        let body = try await client.perform(gated(streamTag)).value.body
        let delayed = client.perform(get("/delay/120000?tag=\(delayTag)"))
        try await server.waitUntilDelaying(tag: delayTag)

        await transport.shutdown(gracePeriod: .milliseconds(50))
        #expect(transport.drivers.runningDrivers == 0)
        await #expect { try await delayed.value } throws: { isRestingError($0, "cancelled") }
        await #expect {
            for try await _ in body {}
        } throws: { isRestingError($0, "cancelled") }
        try await release(streamTag, on: server)
    }

    @Test("withCurlClient shuts its client down when the closure returns, and when it throws")
    func scoped() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let (transport, status) = try await CurlClient.withCurlClient { transport in
            let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
            return (transport, try await client.perform(get("/bytes/8")).value.status)
        }
        #expect(status == 200)
        #expect(transport.drivers.runningDrivers == 0)
        await #expect {
            try await RestingClient(baseUrl: server.baseURL, httpClient: transport).perform(get("/bytes/8")).value
        } throws: { isRestingError($0, "shutDown") }

        struct Failure: Error {}
        let escaped = Locked<CurlClient?>(nil)
        await #expect(throws: Failure.self) {
            try await CurlClient.withCurlClient { transport in
                escaped.withLock { $0 = transport }
                throw Failure()
            }
        }
        #expect(escaped.withLock { $0?.drivers.runningDrivers } == 0)
    }

    // Lifecycle calls from every context a user has. Each waits through `finishing(within:)`: a deadlock fails the
    // test instead of blocking the suite.

    @Test("shutdown awaited by a task that prefers the transport's executor returns, and the threads end")
    func shutdownFromTheExecutor() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let status = try await finishing(on: transport.executor) {
            let status = try await client.send(get("/bytes/8")).status
            await transport.shutdown()
            return status
        }
        #expect(status == 200)
        #expect(transport.drivers.runningDrivers == 0)
    }

    @Test("an interceptor that shuts the transport down gets its shutdown back, and its call settles with .shutDown")
    func shutdownFromAnInterceptor() async throws {
        struct KillSwitch: RestingInterceptor {
            let transport: CurlClient
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                await transport.shutdown(gracePeriod: .seconds(1))
                return try await execution(request)
            }
        }
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: transport, interceptors: [KillSwitch(transport: transport)])
        let outcome = try await finishing { await Result { try await client.perform(get("/bytes/8")).value } }
        #expect { try outcome.get() } throws: { isRestingError($0, "shutDown") }
        #expect(transport.drivers.runningDrivers == 0)
    }

    @Test("a call that shuts the transport down while its own stream is open returns after the grace period")
    func shutdownInsideACallWithItsStreamOpen() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tag = UUID().uuidString
        let ended = try await finishing(on: transport.executor) {
            let body = try await client.perform(gated(tag)).value.body
            await transport.shutdown(gracePeriod: .milliseconds(50))
            return await Result {
                for try await _ in body {}
            }
        }
        #expect { try ended.get() } throws: { isRestingError($0, "cancelled") }
        #expect(transport.drivers.runningDrivers == 0)
        try await release(tag, on: server)
    }

    @Test("withCurlClient whose body hands its work to the client's own executor returns")
    func scopedOnTheExecutor() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let status = try await finishing {
            try await CurlClient.withCurlClient { transport in
                try await withTaskExecutorPreference(transport.executor) {
                    let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
                    return try await client.send(get("/bytes/8")).status
                }
            }
        }
        #expect(status == 200)
    }

    @Test("shutting down twice, or from two tasks at once, waits for the same shutdown")
    func repeated() async throws {
        let transport = try transport()
        async let first: Void = transport.shutdown()
        async let second: Void = transport.shutdown(gracePeriod: .zero)
        _ = await (first, second)
        await transport.shutdown()
        #expect(transport.drivers.runningDrivers == 0)
    }
}
