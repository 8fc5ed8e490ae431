import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// A reconnection is the same call again: its base URL, its place in the concurrency limit, its cancellation.
@Suite("Reconnections are the same call", .timeLimit(.minutes(5)))
struct ReconnectionTests {
    let events = Endpoint<Nothing, ServerSentEvents>(.get, "/events", encoding: .query)
    let quick = ServerSentEvents.Reconnection(maximumAttempts: 3, defaultDelay: .milliseconds(1), minimumDelay: .zero)

    /// Answers `/events` with one event per connection (ids counting up), and records every request.
    final class EventServer: Sendable {
        let seen = Collector<HTTPRequest>()
        let slowGate = Locked<CheckedContinuation<Void, Never>?>(nil)

        var transport: ClosureHTTPClient {
            ClosureHTTPClient { [self] request in
                seen.append(request)
                if request.url.path == "/slow" {
                    await withCheckedContinuation { continuation in slowGate.withLock { $0 = continuation } }
                    return HTTPDataResponse(status: 200, url: request.url)
                }
                let next = Int(request.headers["Last-Event-ID"] ?? "0").map { $0 + 1 } ?? 1
                return HTTPDataResponse(
                    status: 200, headers: ["Content-Type": "text/event-stream"],
                    body: ResponseBody(ResponseBodyStream(Data("id: \(next)\ndata: \(next)\n\n".utf8))),
                    url: request.url)
            }
        }

        func releaseSlow() { slowGate.withLock { $0 }?.resume() }
    }

    @Test("a reconnection goes to the base URL the call started with, not the client's current one")
    func reconnectionKeepsItsBaseURL() async throws {
        let server = EventServer()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: server.transport)
        let body = try await client.perform(RestingRequest(endpoint: events)).value.body
        var iterator = body.reconnecting(quick).makeAsyncIterator()
        #expect(try await iterator.next()?.data == "1")
        client.baseUrl = "https://staging.example.com"
        #expect(try await iterator.next()?.data == "2")
        #expect(server.seen.all.map { $0.url.host } == ["api.example.com", "api.example.com"])
        body.cancel()
    }

    @Test("a reconnection waits for a slot of the client's concurrency limit like any call")
    func reconnectionHonoursTheLimit() async throws {
        let server = EventServer()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: server.transport, concurrency: .serial)
        let body = try await client.perform(RestingRequest(endpoint: events)).value.body
        var iterator = body.reconnecting(quick).makeAsyncIterator()
        #expect(try await iterator.next()?.data == "1")
        let slow = client.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/slow", encoding: .query)))
        await server.seen.wait { $0.count == 2 }  // the slow call holds the only slot
        let reader = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()?.data
        }
        // Until the reconnection is queued for a slot — or, were it to bypass the limit, reaches the transport.
        while client.queuedCount != 1 && server.seen.all.count == 2 { await Task.yield() }
        #expect(server.seen.all.count == 2, "the reconnection waits in the queue, not at the transport")
        server.releaseSlow()
        _ = try await slow.value
        #expect(try await reader.value == "2")
        #expect(server.seen.all.map(\.url.path) == ["/events", "/slow", "/events"])
        body.cancel()
    }

    @Test("the wait before a reconnection is at least the policy's minimum, whatever retry: the server sends")
    func minimumDelay() {
        let policy = ServerSentEvents.Reconnection(maximumAttempts: 1, defaultDelay: .seconds(3))
        #expect(policy.delay(server: .zero) == .milliseconds(100))
        #expect(policy.delay(server: nil) == .seconds(3))
        #expect(policy.delay(server: .seconds(600)) == .seconds(60))
    }

    @Test("a reconnecting reader keeps the call registered between streams, and lets it go when it is done")
    func registration() async throws {
        let server = EventServer()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: server.transport)
        let body = try await client.perform(RestingRequest(endpoint: events)).value.body
        var received: [String] = []
        for try await event in body.reconnecting(quick) {
            received.append(event.data)
            #expect(client.calls.count == 1, "one registration for the whole sequence, not one per stream")
            if received.count == 3 { break }
        }
        #expect(received == ["1", "2", "3"])
        body.cancel()
        #expect(client.calls.count == 0)
    }
}
