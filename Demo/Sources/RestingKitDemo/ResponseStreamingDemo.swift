import Foundation
import RestingCore
import RestingKit

extension Demo {
    struct FeedItem: Decodable, Sendable {
        let id: Int
        let text: String
    }

    /// Says when a call carries `Last-Event-ID`: the moment an event stream reconnects.
    struct ReconnectionReporter: RestingInterceptor {
        let started: ContinuousClock.Instant

        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            if let last = request.headers["Last-Event-ID"] {
                print("  \(Demo.elapsed(since: started))  ↻ the stream ended; reconnecting with Last-Event-ID: \(last)")
            }
            return try await execution(request)
        }
    }

    /// Milliseconds since `start`, right-aligned, so that arrival times line up.
    static func elapsed(since start: ContinuousClock.Instant) -> String {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        let milliseconds = String(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return String(repeating: " ", count: max(0, 5 - milliseconds.count)) + "\(milliseconds) ms"
    }

    func responseStreaming() async throws {
        section("11. Streamed responses: Server-Sent Events as they arrive, cut and resumed; an NDJSON feed")
        let started = ContinuousClock.now
        let events = Endpoint<Nothing, ServerSentEvents>(
            .get, "/stream/sse?count=6&interval_ms=150&cut_after=3&retry_ms=100",
            encoding: .query)
        let response = try await client(interceptors: [ReconnectionReporter(started: started)])
            .perform(RestingRequest(endpoint: events)).value
        print(
            "  \(Self.elapsed(since: started))  GET /stream/sse → \(response.status) \(response.headers["Content-Type"] ?? "-"), events follow"
        )
        var ids: [Int] = []
        for try await event in response.body.reconnecting(.init(maximumAttempts: 3)) {
            let item = try event.decode(FeedItem.self)
            ids.append(item.id)
            print("  \(Self.elapsed(since: started))  event id \(event.lastEventID): \(item.text)")
        }
        try check(ids == Array(1...6), "expected events 1...6 once each, got \(ids)")
        print("  every event arrived once, in order, across the cut; the last reconnection got 204 (no more events)")

        let feed = Endpoint<Nothing, JSONLines<FeedItem>>(
            .get, "/stream/ndjson?count=4&interval_ms=50", encoding: .query)
        var items: [FeedItem] = []
        for try await item in try await client().perform(RestingRequest(endpoint: feed)).value.body {
            items.append(item)
            print("  NDJSON → FeedItem(id: \(item.id), text: \"\(item.text)\")")
        }
        try check(items.map(\.id) == [1, 2, 3, 4], "expected 4 NDJSON items")
    }
}
