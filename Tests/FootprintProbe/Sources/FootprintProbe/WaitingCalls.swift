import HeapUsage
import RestingCore
import RestingResilience
import RestingStreaming
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport that answers no call: each waits in it, holding what a waiting call holds, until it is cancelled.
final class SilentTransport: HTTPClient {
    private struct State {
        var next = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledEarly: Set<Int> = []
    }

    private let state = Mutex(State())

    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state in
                    guard state.cancelledEarly.remove(id) == nil else { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                guard let waiting = state.waiting.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return CheckedContinuation<Void, Never>?.none
                }
                return waiting
            }
            waiting?.resume()
        }
        throw CancellationError()
    }
}

/// What a waiting call decodes (its type shapes the call's generic frames: keep it as measured).
struct Post: Decodable, Sendable { let id: Int }

/// The heap bytes `count` calls waiting at once in `perform` add, per call: the least of three rounds, after a first
/// that warms the allocator and the runtime up. `streamed`: calls of a streamed body, waiting for their heads;
/// `links`: interceptors before the three that pass calls on (each link's frame is held while the call waits).
func bytesPerWaitingCall(count: Int, streamed: Bool, links: [any RestingInterceptor] = []) async -> Int {
    let transport = SilentTransport()
    let client = RestingClient(
        baseUrl: "http://127.0.0.1:9", httpClient: transport,
        interceptors: links + [PassThrough(), PassThrough(), PassThrough()])
    let buffered = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1"))
    let events = RestingRequest(endpoint: Endpoint<Nothing, ServerSentEvents>(.get, "/events"))

    func round() async -> Int {
        let before = Int(heap_in_use())
        var ends: [@Sendable () async -> Void] = []
        ends.reserveCapacity(count)
        for _ in 0..<count {
            if streamed {
                let call = client.perform(events)
                ends.append { _ = try? await call.value }
            } else {
                let call = client.perform(buffered)
                ends.append { _ = try? await call.value }
            }
        }
        while transport.waitingCount < count { await Task.yield() }
        let held = Int(heap_in_use()) - before
        client.cancelAll()
        for end in ends { await end() }
        return held / count
    }

    var least = Int.max
    for _ in 0..<4 { least = min(least, await round()) }
    return least
}

/// The resilience links of the Resilience article's order, quiet: what a client that uses them all puts in each
/// waiting call's frames.
let resilienceLinks: [any RestingInterceptor] = [
    DeadlineInterceptor(callTimeout: .seconds(600), attemptTimeout: .seconds(300)),
    CircuitBreakerInterceptor(), RetryInterceptor(),
    RateLimitInterceptor(limit: .init(requests: 100_000_000, per: .seconds(1))),
    ConcurrencyLimitInterceptor(.fixed(100_000)),
]
