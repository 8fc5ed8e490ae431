import Foundation
import HeapUsage
import RestingCore
import Synchronization

// What a call waiting for its response holds, in heap bytes per call.
//   FootprintProbe perform COUNT   COUNT calls through `perform` (a body read whole), waiting in the transport
//   FootprintProbe stream COUNT    COUNT streamed calls through `perform`, waiting for their heads
// Prints "bytes-per-call N": the least of three rounds, each after the same calls were made and ended once.

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

/// Does nothing, as three interceptors of a real app would do something cheap.
struct PassThrough: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await execution(request)
    }
}

struct Post: Decodable, Sendable { let id: Int }

let arguments = CommandLine.arguments
guard arguments.count == 3, ["perform", "stream"].contains(arguments[1]), let count = Int(arguments[2]), count > 0
else {
    print("usage: FootprintProbe perform|stream COUNT")
    exit(2)
}
let transport = SilentTransport()
let client = RestingClient(
    baseUrl: "http://127.0.0.1:9", httpClient: transport, interceptors: [PassThrough(), PassThrough(), PassThrough()])
let buffered = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1"))
let streamed = RestingRequest(endpoint: Endpoint<Nothing, ServerSentEvents>(.get, "/events"))

/// The heap bytes `count` waiting calls add, per call; then ends them.
func round() async -> Int {
    let before = Int(heap_in_use())
    var ends: [@Sendable () async -> Void] = []
    ends.reserveCapacity(count)
    for _ in 0..<count {
        if arguments[1] == "perform" {
            let call = client.perform(buffered)
            ends.append { _ = try? await call.value }
        } else {
            let call = client.perform(streamed)
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
for _ in 0..<4 { least = min(least, await round()) }  // the first round warms the allocator and the runtime up
print("bytes-per-call \(least)")
