import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingPagination

/// A poll asks again as its schedule and the server say, conditional on the last change, and stops when its task is
/// cancelled or a failure ends it.
@Suite("Polling")
struct PollingTests {
    struct Status: Codable, Sendable, Equatable { let version: Int }
    let endpoint = Endpoint<Nothing, Status>(.get, "/status")

    /// Version `n` of the status, tagged `"n"`.
    func version(_ n: Int) throws -> StubResponse {
        .status(
            200, headers: ["ETag": "\"\(n)\"", "Content-Type": "application/json"],
            body: try JSONEncoder().encode(Status(version: n)))
    }

    @Test("a 304 is waited past even where the endpoint does not accept it; each change carries on its validator")
    func notModifiedIsNoChange() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/status", try version(1), .status(304),
            .status(429, headers: ["Retry-After": "30"]), try version(2))
        let clock = VirtualClock()
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        var polls = client.poll(
            RestingRequest(endpoint: endpoint), schedule: PollingSchedule(every: .seconds(10), clock: clock)
        )
        .makeAsyncIterator()
        #expect(try await polls.next()?.body == Status(version: 1))
        #expect(try await polls.next()?.body == Status(version: 2))
        #expect(clock.sleeps == [.seconds(10), .seconds(10), .seconds(30)])
        #expect(stub.received.map { $0.request.headers["If-None-Match"] } == [nil, "\"1\"", "\"1\"", "\"1\""])
    }

    @Test(
        "a poll started at a known version asks only for what changed since, with the validator and query made from it")
    func startsAtAKnownVersion() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/status", try version(5), .status(304), try version(6))
        let clock = VirtualClock()
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        let read = RestingRequest(endpoint: endpoint)
        let current = try await client.send(read)
        #expect(current.etag == "\"5\"" && current.etagValue == "5")
        var changes = client.poll(
            read, schedule: PollingSchedule(every: .seconds(10), clock: clock), startingAt: current
        ) {
            request, last in
            var next = request
            next.queryItems = [URLQueryItem(name: "_since", value: last.etagValue)]
            return next
        }.makeAsyncIterator()
        #expect(try await changes.next()?.body == Status(version: 6), "version 5, known, is not yielded again")
        #expect(stub.received.map { $0.request.headers["If-None-Match"] } == [nil, "\"5\"", "\"5\""])
        #expect(stub.received.map { $0.request.url.query } == [nil, "_since=5", "_since=5"])
    }

    @Test("an entity tag's value drops its quotes and its weak prefix; a tag without them is kept as it is")
    func entityTagValue() {
        func value(_ etag: String?) -> String? {
            RestingResponse(status: 200, headers: HTTPHeaderFields(etag.map { [("ETag", $0)] } ?? []), body: Nothing())
                .etagValue
        }
        #expect(value("\"17\"") == "17")
        #expect(value("W/\"a-b\"") == "a-b")
        #expect(value("bare") == "bare")
        #expect(value("\"") == "\"")
        #expect(value(nil) == nil)
    }

    @Test("a failure the server does not say to wait past ends the poll with the error")
    func failureEnds() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/status", try .json(Status(version: 1)), .status(500))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        var polls = client.poll(
            RestingRequest(endpoint: endpoint), schedule: PollingSchedule(every: .seconds(1), clock: VirtualClock())
        ).makeAsyncIterator()
        _ = try await polls.next()
        let failure = await #expect(throws: RestingError.self) { try await polls.next() }
        #expect(failure?.errorType == "500")
    }

    @Test("cancelling the iterating task ends the poll, waiting or asking")
    func cancellationEnds() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/status", try version(1), .status(304))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        let first = AsyncStream<Void>.makeStream()
        let polling = Task {
            var changes = 0
            // The real clock: the poll waits an hour after the first change, until it is cancelled.
            for try await _ in client.poll(
                RestingRequest(endpoint: endpoint), schedule: PollingSchedule(every: .seconds(3600)))
            {
                changes += 1
                first.continuation.yield()
            }
            return changes
        }
        for await _ in first.stream { break }
        polling.cancel()
        #expect(try await finishing(within: .seconds(30)) { try await polling.value } == 1)
    }

    @Test("cancelAll() ends a poll whose round is in flight with cancelled; after shutdown the next round is refused")
    func clientLifecycle() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/status", try version(1), try version(2).delayed(by: .seconds(3600)))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        let poll = client.poll(
            RestingRequest(endpoint: endpoint), schedule: PollingSchedule(every: .seconds(1), clock: VirtualClock()))
        let firstChange = AsyncStream<Void>.makeStream()
        let polling = Task {
            var changes = poll.makeAsyncIterator()
            _ = try await changes.next()
            firstChange.continuation.yield()
            return try await changes.next()
        }
        for await _ in firstChange.stream { break }
        while stub.received.count < 2 { await Task.yield() }  // the second round is at the transport
        client.cancelAll()
        await #expect(throws: RestingError.cancelled) {
            try await finishing(within: .seconds(30)) { try await polling.value }
        }

        await client.shutdown()
        var afterShutdown = poll.makeAsyncIterator()
        await #expect(throws: RestingError.shutDown) { try await afterShutdown.next() }
    }

    @Test("an API's own header of seconds adds to Retry-After; the longer wait wins")
    func honouringHeader() {
        let schedule = PollingSchedule(every: .seconds(5), clock: VirtualClock()).honouring(secondsIn: "Backoff")
        #expect(schedule.delay(after: ["Backoff": "60"]) == .seconds(60))
        #expect(schedule.delay(after: ["Backoff": "60", "Retry-After": "120"]) == .seconds(120))
        #expect(schedule.delay(after: ["Backoff": "1"]) == .seconds(5))
        #expect(schedule.delay(after: ["Backoff": "soon"]) == .seconds(5))
        #expect(schedule.delay(after: ["Backoff": "-3"]) == .seconds(5))
    }

    @Test("a server asking for a wait past any clock waits an hour, the ceiling of a server's back-off")
    func hostileDelays() {
        let schedule = PollingSchedule(every: .seconds(5), clock: VirtualClock()).honouring(secondsIn: "Backoff")
        for huge in ["9223372036854775807", "99999999999999999999999999"] {
            #expect(schedule.delay(after: ["Backoff": huge]) == .seconds(3600))
            #expect(schedule.delay(after: ["Retry-After": huge]) == .seconds(3600))
        }
    }
}
