import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

@Suite("RestingClient.shutdown")
struct RestingClientShutdownTests {
    /// A route that answers once its gate is opened.
    final class Gate: Sendable {
        private let opened: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation
        let arrived: AsyncStream<Void>
        private let arrival: AsyncStream<Void>.Continuation

        init() {
            (opened, opener) = AsyncStream.makeStream()
            (arrived, arrival) = AsyncStream.makeStream()
        }

        func pass() async {
            arrival.yield()
            for await _ in opened { return }
        }

        func open() { opener.finish() }
    }

    let gate = Gate()
    var stub: StubHTTPClient {
        StubHTTPClient { [gate] _ in
            await gate.pass()
            return .status(200)
        }
    }

    func get() -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/slow", encoding: .query))
    }

    @Test("calls made before run to their end; perform and send after it fail .shutDown; then it returns")
    func graceful() async throws {
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: stub)
        let inFlight = client.perform(get())
        for await _ in gate.arrived { break }
        let shutdown = Task { await client.shutdown() }
        while await !refused(client) { await Task.yield() }
        await #expect { try await client.send(get()) } throws: { isRestingError($0, "shutDown") }
        await #expect { try await client.perform(get()).value } throws: { isRestingError($0, "shutDown") }
        gate.open()
        #expect(try await inFlight.value.status == 200)
        await shutdown.value
        #expect(client.calls.count == 0)
    }

    @Test("after the grace period the calls still running are cancelled, and the shutdown returns")
    func gracePeriod() async throws {
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: stub)
        let inFlight = client.perform(get())
        for await _ in gate.arrived { break }
        await client.shutdown(gracePeriod: .milliseconds(20))
        await #expect { try await inFlight.value } throws: { isRestingError($0, "cancelled") }
        gate.open()
    }

    /// A client whose interceptor shuts it down from inside the calls to `/stop` (to `/gated-stop` once the gate is
    /// open), then lets them go on.
    func selfStoppingClient(gracePeriod: Duration?) -> RestingClient {
        /// The client, held weakly: it holds the interceptor that holds this.
        struct WeakClient { weak var value: RestingClient? }
        struct KillSwitch: RestingInterceptor {
            let client: Locked<WeakClient>
            let gate: Gate
            let gracePeriod: Duration?
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                if request.url.path == "/gated-stop" { await gate.pass() }
                if request.url.path.hasSuffix("stop"), let client = client.withLock({ $0.value }) {
                    await client.shutdown(gracePeriod: gracePeriod)
                }
                return try await execution(request)
            }
        }
        let box = Locked(WeakClient())
        let stub = StubHTTPClient { [gate] request in
            if request.request.url.path == "/slow" { await gate.pass() }
            return .status(200)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [KillSwitch(client: box, gate: gate, gracePeriod: gracePeriod)])
        box.withLock { $0.value = client }
        return client
    }

    func stop(_ path: String = "/stop") -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    @Test("called from inside a call, it waits for the other calls, not for that one, which then goes on")
    func fromInsideACall() async throws {
        let client = selfStoppingClient(gracePeriod: nil)
        let other = client.perform(get())
        for await _ in gate.arrived { break }
        let stopping = client.perform(stop())
        while await !refused(client) { await Task.yield() }
        gate.open()
        let statuses = try await finishing { (try await stopping.value.status, try await other.value.status) }
        #expect(statuses == (200, 200))
        #expect(client.calls.count == 0)
    }

    @Test("called from inside a call with a grace period, it cancels the others once it has passed, and returns")
    func fromInsideACallWithAGracePeriod() async throws {
        let client = selfStoppingClient(gracePeriod: .milliseconds(20))
        let other = client.perform(get())
        for await _ in gate.arrived { break }
        let status = try await finishing { try await client.perform(stop()).value.status }
        #expect(status == 200)
        await #expect { try await other.value } throws: { isRestingError($0, "cancelled") }
        gate.open()
    }

    @Test("called from inside a send and a call at once, each waiting for the other, both shutdowns return")
    func fromInsideTwoCallsAtOnce() async throws {
        let client = selfStoppingClient(gracePeriod: nil)
        let sent = Task { try await client.send(stop("/gated-stop")).status }
        let performed = client.perform(stop("/gated-stop"))
        var arrivals = 0
        for await _ in gate.arrived {
            arrivals += 1
            if arrivals == 2 { break }
        }
        gate.open()
        let statuses = try await finishing { (try await sent.value, try await performed.value.status) }
        #expect(statuses == (200, 200))
        #expect(client.calls.count == 0)
    }

    @Test("a shutdown from outside returns only once a call that shut the client down from inside has settled")
    func fromOutsideAndInsideAtOnce() async throws {
        let client = selfStoppingClient(gracePeriod: nil)
        let stopping = client.perform(stop("/gated-stop"))
        for await _ in gate.arrived { break }
        let outside = Task { await client.shutdown() }
        while await !refused(client) { await Task.yield() }
        gate.open()
        try await finishing { await outside.value }
        #expect(client.calls.count == 0, "the outside shutdown returned before the call it waited for settled")
        #expect(try await stopping.value.status == 200)
    }

    /// Whether a new call is refused (the shutdown has begun).
    private func refused(_ client: RestingClient) async -> Bool {
        guard let id = client.calls.add(cancel: {}) else { return true }
        client.calls.settle(id)
        return false
    }
}
