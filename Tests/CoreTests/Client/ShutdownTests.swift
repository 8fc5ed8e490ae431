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

    /// Whether a new call is refused (the shutdown has begun).
    private func refused(_ client: RestingClient) async -> Bool {
        guard let id = client.calls.add(cancel: {}) else { return true }
        client.calls.settle(id)
        return false
    }
}
