import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import Testing

/// Hostile review of `shutdown(gracePeriod:)` of `RestingClient` over `CurlClient`, and of `CurlClient` itself,
/// against the conformance server (`/delay/<ms>?tag=` holds its answer). Tests marked "found by the review, fixed"
/// failed against 4bab00f; the others are attacks it withstood.
@Suite("CurlClient shutdown and its grace period: hostile review", .timeLimit(.minutes(5)))
struct CurlShutdownGraceHostileReviewTests {
    struct WeakClient: Sendable { weak var value: RestingClient? }

    /// Shuts the client down with `grace` from inside each call whose URL has `stop=1`.
    struct KillSwitch: RestingInterceptor {
        let box: Locked<WeakClient>
        let grace: Duration?
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            if request.url.absoluteString.contains("stop=1"), let client = box.withLock({ $0.value }) {
                await client.shutdown(gracePeriod: grace)
            }
            return try await execution(request)
        }
    }

    func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    func transport() throws -> CurlClient { try CurlShutdownTests.transport() }

    func outcome(_ body: () async throws -> Int) async -> String {
        do { return String(try await body()) } catch { return (error as? RestingError)?.errorType ?? "\(error)" }
    }

    @Test(
        "withstood: the transport shut down with zero grace under a client's running calls (perform, send, on the executor); then the client's shutdown returns"
    )
    func transportFirstThenClient() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tags = (0..<3).map { _ in UUID().uuidString }
        let performed = client.perform(get("/delay/120000?tag=\(tags[0])"))
        let sent = Task { try await client.send(get("/delay/120000?tag=\(tags[1])")).status }
        let onExecutor = Task(executorPreference: client.executor) {
            try await client.send(get("/delay/120000?tag=\(tags[2])")).status
        }
        for tag in tags { try await server.waitUntilDelaying(tag: tag) }

        await withoutHanging("transport zero-grace shutdown") { await transport.shutdown(gracePeriod: .zero) }
        await withoutHanging("client shutdown after its transport's") { await client.shutdown(gracePeriod: nil) }
        #expect(await outcome { try await performed.value.status } == "cancelled")
        #expect(await outcome { try await sent.value } == "cancelled")
        #expect(await outcome { try await onExecutor.value } == "cancelled")
        #expect(transport.drivers.runningDrivers == 0)
        await #expect { try await client.send(get("/bytes/8")) } throws: { isRestingError($0, "shutDown") }
    }

    @Test(
        "withstood: a zero-grace kill switch in a call running on the transport's executor: that call completes, the other is cancelled, the transport then shuts down from its own executor"
    )
    func killSwitchOnTheExecutor() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let box = Locked(WeakClient())
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: transport, interceptors: [KillSwitch(box: box, grace: .zero)])
        box.withLock { $0.value = client }
        let tag = UUID().uuidString
        let other = client.perform(get("/delay/120000?tag=\(tag)"))
        try await server.waitUntilDelaying(tag: tag)
        let stopping = Task(executorPreference: client.executor) {
            try await client.send(get("/bytes/8?stop=1")).status
        }
        #expect(await withoutHanging("kill switch") { await outcome { try await stopping.value } } == "200")
        #expect(await outcome { try await other.value.status } == "cancelled")
        let shutdown = Task(executorPreference: transport.executor) { await transport.shutdown(gracePeriod: .zero) }
        await withoutHanging("transport shutdown from its own executor") { await shutdown.value }
        #expect(transport.drivers.runningDrivers == 0)
    }

    @Test(
        "withstood: concurrent and repeated transport shutdowns (zero, nil, 1 ns) with transfers in flight all return")
    func concurrentTransportShutdowns() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try transport()
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let tags = (0..<4).map { _ in UUID().uuidString }
        let calls = tags.map { client.perform(get("/delay/120000?tag=\($0)")) }
        for tag in tags { try await server.waitUntilDelaying(tag: tag) }
        await withoutHanging("transport shutdowns") {
            await withTaskGroup(of: Void.self) { group in
                let graces: [Duration?] = [nil, .nanoseconds(1), nil, .zero, nil]
                for grace in graces {
                    group.addTask { await transport.shutdown(gracePeriod: grace) }
                    group.addTask(executorPreference: transport.executor) {
                        await transport.shutdown(gracePeriod: grace)
                    }
                }
                await group.waitForAll()
            }
        }
        for call in calls { #expect(await outcome { try await call.value.status } == "cancelled") }
        await withoutHanging("client shutdown") { await client.shutdown(gracePeriod: .zero) }
        #expect(transport.drivers.runningDrivers == 0)
    }

    // Found by the review, fixed: CurlClient.shutdown with a huge grace period (.seconds(Int64.max)) traps the process in GracePeriod's timer (Task.sleep overflow)
    @Test("a transport shutdown with a huge grace period returns without crashing the process")
    func hugeGraceTransport() async throws {
        await #expect(processExitsWith: .success) {
            let transport = try CurlClient()
            let shutdown = Task { await transport.shutdown(gracePeriod: .seconds(Int64.max)) }
            await shutdown.value
            // The grace timer may still be starting: give it every chance to run before the process exits.
            for _ in 0..<1_000 { await Task.yield() }
        }
    }
}
