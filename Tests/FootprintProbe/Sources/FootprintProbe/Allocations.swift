import AllocationCounter
import RestingCore
import RestingCurl
import RestingResilience
import RestingStreaming
import RestingWebSocket
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Does nothing, as three interceptors of a real app would do something cheap.
struct PassThrough: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await execution(request)
    }
}

/// What the GETs decode: nginx's post in `make bench`, the conformance server's JSON in the tests.
struct Answer: Decodable, Sendable { let id: Int? }

/// A transport that answers every call at once with a small JSON body: the calls' own allocations, without a network.
struct AnsweringTransport: HTTPClient {
    static let body = Data(#"{"id":1}"#.utf8)

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        HTTPDataResponse(status: 200, headers: ["Content-Type": "application/json"], body: ResponseBody(Self.body))
    }
}

/// Counts the events it hears, as a cheap real listener would.
final class EventCounter: CallEventListener {
    let count = Atomic<Int>(0)
    func handle(_ event: CallEvent) { count.add(1, ordering: .relaxed) }
}

/// Heap allocations per unit of work, counted in the whole process (every thread, every library).
enum Allocations {
    /// Calls `work` `total` times from `concurrency` loops, on `executor` when given.
    static func run(
        _ total: Int, concurrency: Int, executor: (any TaskExecutor)?,
        _ work: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for loop in 0..<concurrency {
                let count = total / concurrency + (loop < total % concurrency ? 1 : 0)
                group.addTask(executorPreference: executor) {
                    for _ in 0..<count { try await work() }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The rounds ``perCall(_:concurrency:executor:counter:_:)`` counts, after one that warms up.
    static let countedRounds = 3

    /// Allocations per call of `work` (or what `counter` counts instead), over `total` calls made after as many again
    /// that warm caches, pools and connections up: the least of ``countedRounds`` rounds, since a thread the runtime or
    /// libcurl starts now and then is no call's cost.
    static func perCall(
        _ total: Int, concurrency: Int = 1, executor: (any TaskExecutor)? = nil,
        counter: () -> UInt64 = allocations_made, _ work: @escaping @Sendable () async throws -> Void
    ) async throws -> Double {
        try await run(total, concurrency: concurrency, executor: executor, work)
        var least = Double.infinity
        for _ in 0..<countedRounds {
            let before = counter()
            try await run(total, concurrency: concurrency, executor: executor, work)
            least = min(least, Double(counter() - before) / Double(total))
        }
        return least
    }

    /// The origin a client of `url` has as its base URL.
    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
    }

    /// A client like a real app's: three cheap interceptors before `transport`, and any `links` first.
    static func client(
        _ base: String, _ transport: any HTTPClient, links: [any RestingInterceptor] = [],
        listener: (any CallEventListener)? = nil
    ) -> RestingClient {
        RestingClient(
            baseUrl: base, httpClient: transport, interceptors: links + [PassThrough(), PassThrough(), PassThrough()],
            eventListener: listener.map { .shared($0) })
    }

    /// A GET decoded from JSON through `CurlClient`, `concurrency` in flight on the client's executor; `streamed`:
    /// its body read as a stream of lines instead.
    static func curlGet(_ url: URL, total: Int, concurrency: Int, streamed: Bool) async throws -> Double {
        let client = client(origin(of: url), try CurlClient())
        let decoded = RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, url.path))
        let lines = RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, url.path))
        return try await perCall(total, concurrency: concurrency, executor: client.executor) {
            if streamed {
                for try await _ in try await client.perform(lines).value.body {}
            } else {
                _ = try await client.perform(decoded).value
            }
        }
    }

    /// Each resilience link installed and never met (the calls succeed, well within every limit): the allocations it
    /// adds to a call, against the same calls without it.
    static func quietLinks(total: Int) async throws -> [(String, Double)] {
        let links: [(String, any RestingInterceptor)] = [
            ("deadline", DeadlineInterceptor(callTimeout: .seconds(60), attemptTimeout: .seconds(30))),
            ("circuit-breaker", CircuitBreakerInterceptor()),
            ("rate-limit", RateLimitInterceptor(limit: .init(requests: 100_000_000, per: .seconds(1)))),
            ("concurrency-limit", ConcurrencyLimitInterceptor(.fixed(1_000))),
            ("retry", RetryInterceptor()),
            ("hedging", HedgingInterceptor(delay: .fixed(.seconds(60)))),
        ]
        let request = RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, "/posts/1"))
        let bare = client("http://127.0.0.1:9", AnsweringTransport())
        let without = try await perCall(total) { _ = try await bare.perform(request).value }
        var added: [(String, Double)] = []
        for (name, link) in links {
            let linked = client("http://127.0.0.1:9", AnsweringTransport(), links: [link])
            added.append((name, try await perCall(total) { _ = try await linked.perform(request).value } - without))
        }
        return added
    }

    /// A listener hearing every event of a call: the allocations each event adds, against the same calls unheard.
    static func perEvent(total: Int) async throws -> Double {
        let request = RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, "/posts/1"))
        let counter = EventCounter()
        let heard = client("http://127.0.0.1:9", AnsweringTransport(), listener: counter)
        let unheard = client("http://127.0.0.1:9", AnsweringTransport())
        let without = try await perCall(total) { _ = try await unheard.perform(request).value }
        counter.count.store(0, ordering: .relaxed)
        let with = try await perCall(total) { _ = try await heard.perform(request).value }
        // perCall made its warm-up round and its counted ones, `total` calls each.
        let eventsPerCall = Double(counter.count.load(ordering: .relaxed)) / Double((countedRounds + 1) * total)
        return (with - without) / eventsPerCall
    }

    /// Messages echoed by the WebSocket server at `url` through `CurlClient`: the allocations of one message sent and
    /// its echo received.
    static func webSocketEcho(_ url: URL, total: Int) async throws -> Double {
        let client = client(origin(of: url), try CurlClient())
        let socket = try await client.webSocket(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, url.path)),
            options: WebSocketOptions(compression: nil))
        let message = String(repeating: "x", count: 64)
        let perMessage = try await perCall(total) {
            try await socket.send(message)
            // An iterator holds only the socket: a new one per message reads on where the last one stopped.
            var messages = socket.makeAsyncIterator()
            guard case .text? = try await messages.next() else { throw RestingError.cancelled }
        }
        await socket.close()
        return perMessage
    }
}
