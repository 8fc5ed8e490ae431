import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingPagination
@testable import RestingResilience

/// A poll started at a known version, a server's `Backoff` and odd entity tags.
@Suite("Polling and back-off, hostile")
struct PollingHostileTests {
    struct Status: Codable, Sendable, Equatable { let version: Int }
    let endpoint = Endpoint<Nothing, Status>(.get, "/status")

    func version(_ n: Int, headers: HTTPHeaderFields = [:]) throws -> StubResponse {
        var fields: HTTPHeaderFields = ["ETag": "\"\(n)\"", "Content-Type": "application/json"]
        for field in headers { fields.add(name: field.name, value: field.value) }
        return .status(200, headers: fields, body: try JSONEncoder().encode(Status(version: n)))
    }

    /// The response given as `startingAt` stands for the poll's last round: the first round waits as long as its
    /// headers ask (`Backoff`, `Retry-After`), as after any change the poll yields.
    @Test(
        "a poll started at a response that asks the client to back off waits that long before its first round",
        arguments: [("Backoff", "120"), ("Retry-After", "120")])
    func startingAtHonoursTheKnownResponsesBackoff(_ name: String, _ value: String) async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/status", try version(5, headers: [name: value]), .status(304), try version(6))
        let clock = VirtualClock()
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        let read = RestingRequest(endpoint: endpoint)
        let current = try await client.send(read)
        let schedule = PollingSchedule(every: .seconds(10), clock: clock).honouring(secondsIn: "Backoff")
        var changes = client.poll(read, schedule: schedule, startingAt: current).makeAsyncIterator()
        // A VirtualClock's sleep returns at once: nothing here can hang.
        #expect(try await changes.next()?.body == Status(version: 6))
        #expect(clock.sleeps.first.map { $0 >= .seconds(120) } == true, "sleeps: \(clock.sleeps)")
    }

    @Test(
        "odd entity tags reach etagValue and a poll's next round without a crash",
        arguments: [
            "W/", "W/\"", "\"", "\"\"", "W/\"\"", "\"abc", "abc\"", "w/\"x\"", "W/W/\"x\"", "\"a\", \"b\"",
            String(repeating: "\"", count: 9_999), "\"" + String(repeating: "é", count: 4_000) + "\"",
        ])
    func oddEntityTags(_ etag: String) async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/status",
            .status(
                200, headers: ["ETag": etag, "Content-Type": "application/json"], body: Data(#"{"version":1}"#.utf8)),
            .status(304), try version(2))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub)
        let read = RestingRequest(endpoint: endpoint)
        let current = try await client.send(read)
        let value = try #require(current.etagValue)
        #expect(value.count <= etag.count)
        var changes = client.poll(
            read, schedule: PollingSchedule(every: .seconds(1), clock: VirtualClock()), startingAt: current
        ) { request, last in
            var next = request
            next.queryItems = [URLQueryItem(name: "_since", value: last.etagValue)]
            return next
        }.makeAsyncIterator()
        #expect(try await changes.next()?.body == Status(version: 2))
        #expect(stub.received.count == 3)
        #expect(stub.received.allSatisfy { $0.request.url.host == "api.example.com" })
    }

    @Test(
        "a hostile Backoff pauses a key for an hour at the most, and garbage pauses nothing",
        arguments: [
            ("-1", false), ("NaN", false), ("1e9", false), ("0x10", false), ("60s", false), ("6 0", false),
            ("", false), ("+60", false), ("60.5", false), ("١٢٠", false),
            ("99999999999999999999999999999999999999999999999999", true), (" 60 ", true),
            (String(repeating: "9", count: 100_000), true), ("0", false),
        ])
    func hostileBackoff(_ value: String, _ pauses: Bool) async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: .init(requests: 100, per: .seconds(1)), maximumWait: .seconds(7200), backoffHeaders: ["Backoff"],
            clock: clock)
        let url = URL(string: "https://api.example.com/items")!
        _ = try await FakeChain(.status(200, headers: ["Backoff": value])).run(
            limiter, on: HTTPRequest(method: .get, url: url))
        let pause = limiter.pausedUntil(for: "https://api.example.com:443").map { $0.timeIntervalSince(clock.now) }
        if pauses {
            #expect(pause.map { $0 > 0 && $0 <= 3600 } == true, "pause: \(String(describing: pause))")
        } else {
            #expect(pause == nil, "pause: \(String(describing: pause))")
        }
        // The next call waits out at most the ceiling, never hangs.
        _ = try await finishing(within: .seconds(60)) {
            try await FakeChain(.status(200)).run(limiter, on: HTTPRequest(method: .get, url: url))
        }
        #expect(clock.sleeps.allSatisfy { $0 <= .seconds(3600) })
    }
}
