import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// What a client promises its listeners, on a stub: one terminal event per call whatever ends it, a listener per call
/// when asked, a consumer too slow for the calls that cannot hold them back, no credential in any event — and
/// nothing reported, or paid for, without a listener.
@Suite("Call event listeners")
struct CallEventListenerTests {
    typealias Recorder = EventRecorder

    private static let get = Endpoint<Nothing, Data>(.get, "/thing")

    /// A stub answering with `statuses`, one per request, in order.
    private static func stub(_ statuses: Int...) -> StubHTTPClient {
        let remaining = Locked(statuses)
        return StubHTTPClient(fallback: { _ in .status(remaining.withLock { $0.isEmpty ? 500 : $0.removeFirst() }) })
    }

    @Test("each call has its own id, the same in every one of its events")
    func callIDs() async throws {
        let recorder = Recorder()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Self.stub(200, 200),
            eventListener: .shared(recorder))
        _ = try await client.send(RestingRequest(endpoint: Self.get))
        _ = try await client.perform(RestingRequest(endpoint: Self.get)).value
        let ids = recorder.all.map(\.callID)
        #expect(Set(ids).count == 2)
        #expect(ids == ids.sorted(), "one call's events all come before the next call's")
        #expect(recorder.all.filter(\.kind.isTerminal).count == 2)
    }

    @Test("a factory makes one listener per call, which sees only that call")
    func perCallListeners() async throws {
        let made = Locked<[UInt64: Recorder]>([:])
        // snippet: event-listener-per-call
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Self.stub(200, 404),
            eventListener: .perCall { callID in
                let recorder = Recorder()  // this call's own state: no lock shared with other calls
                made.withLock { $0[callID] = recorder }
                return recorder
            })
        // end snippet
        _ = try await client.send(RestingRequest(endpoint: Self.get))
        await #expect(throws: RestingError.self) { try await client.send(RestingRequest(endpoint: Self.get)) }
        let recorders = made.withLock { $0 }
        #expect(recorders.count == 2)
        for (id, recorder) in recorders {
            #expect(recorder.all.allSatisfy { $0.callID == id })
            #expect(recorder.kinds.first == .callStarted)
            #expect(recorder.kinds.filter(\.isTerminal).count == 1)
        }
        let terminals = recorders.values.compactMap { $0.kinds.last }
        #expect(terminals.contains(.callEnded(status: 200)))
        #expect(terminals.contains { if case .callFailed("404", _) = $0 { true } else { false } })
    }

    @Test("a call waiting for a concurrency slot reports the wait once it has the slot")
    func concurrencySlot() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let recorder = Recorder()
        let stub = StubHTTPClient(fallback: { _ in
            for await _ in gate.stream { break }
            return .status(200)
        })
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, concurrency: .limited(1),
            eventListener: .shared(recorder))
        let first = client.perform(RestingRequest(endpoint: Self.get))
        let second = client.perform(RestingRequest(endpoint: Self.get))
        while client.queuedCount == 0 { await Task.yield() }
        gate.continuation.yield()
        gate.continuation.yield()
        _ = try await (first.value, second.value)
        let slots = recorder.kinds.filter { if case .concurrencySlotAcquired = $0 { true } else { false } }
        #expect(slots.count == 2)
        #expect(recorder.all.filter(\.kind.isTerminal).count == 2)
    }

    @Test("a consumer that never reads holds no call back: the buffer keeps the newest events and counts the rest")
    func slowConsumer() async throws {
        // snippet: event-buffer
        let buffer = CallEventBuffer(capacity: 4)
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Self.stub(200), eventListener: .shared(buffer))
        // end snippet
        _ = try await client.send(RestingRequest(endpoint: Self.get))
        buffer.finish()
        var kept: [CallEvent.Kind] = []
        for await event in buffer.events { kept.append(event.kind) }
        #expect(kept.count == 4)
        #expect(kept.last == .callEnded(status: 200))
        #expect(buffer.droppedCount > 0)
    }

    @Test("a streamed body dropped unread ends its call, as cancelled")
    func streamDroppedUnread() async throws {
        let recorder = Recorder()
        let stub = StubHTTPClient()
        stub.register(.get, "/thing", .stream([.text("never read")]))
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, eventListener: .shared(recorder))
        do {
            let streamed = Endpoint<Nothing, ResponseBodyStream>(.get, "/thing")
            _ = try await client.perform(RestingRequest(endpoint: streamed)).value
        }
        #expect(recorder.kinds.last == .callCancelled)
        #expect(recorder.kinds.filter(\.isTerminal).count == 1)
    }

    @Test(
        "a streamed body its reader cannot go on with — a line or an event over its limit — ends its call failed with that, not cancelled"
    )
    func readerFailureEndsTheCallFailed() async throws {
        let readers: [@Sendable (ResponseBodyStream) async throws -> Void] = [
            { body in for try await _ in ResponseLines(body, maximumLineLength: 8) {} },
            { body in for try await _ in body.serverSentEvents.maximumEventSize(8) {} },
            { body in for try await _ in body.serverSentEvents.maximumEventSize(8).reconnecting() {} },
        ]
        for read in readers {
            let recorder = Recorder()
            let stub = StubHTTPClient()
            stub.register(.get, "/thing", .stream([.text("data: longer than eight bytes\n\n")]))
            let client = RestingClient(
                baseUrl: "https://api.example.com", httpClient: stub, eventListener: .shared(recorder))
            let streamed = Endpoint<Nothing, ResponseBodyStream>(.get, "/thing")
            let body = try await client.perform(RestingRequest(endpoint: streamed)).value.body
            await #expect(throws: StreamElementTooLarge.self) { try await read(body) }
            #expect(
                recorder.kinds.filter(\.isTerminal).map(\.terminalErrorType) == ["streamElementTooLarge"],
                "\(recorder.kinds)")
        }
    }

    @Test("a call refused because it was cancelled before it started ends once, as cancelled")
    func cancelledBeforeStart() async throws {
        let recorder = Recorder()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: Self.stub(200), eventListener: .shared(recorder))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(RestingRequest(endpoint: Self.get))
        }
        await #expect(throws: RestingError.cancelled) { try await task.value }
        #expect(recorder.kinds == [.callStarted, .callCancelled])
    }

    @Test("no event carries a credential: random secret headers, query secrets and user-info, on every path")
    func noCredentialInAnyEvent() async throws {
        var random = SeededGenerator(seed: 0x5EC2E7)
        let headerNames = ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key", "X-Custom-Secret"]
        let queryNames = ["access_token", "api_key", "password", "client_secret", "signature", "sessionId"]
        for trial in 0..<40 {
            let secret = "s3cr3t\(random.next() % 1_000_000_000)x"
            var headers: HTTPHeaderFields = [:]
            let name = headerNames.randomElement(using: &random) ?? "Authorization"
            headers.add(name: name, value: "Bearer \(secret)", sensitive: true)
            let query = queryNames.randomElement(using: &random) ?? "token"
            let recorder = Recorder()
            let stub = StubHTTPClient(fallback: { received in
                switch received.request.url.path {
                case "/start": .status(307, headers: ["Location": "https://other.example.com/next?\(query)=\(secret)"])
                case "/next" where received.request.attributes.attempt == 1: .status(503)
                default: .status(401, headers: ["Set-Cookie": "session=\(secret)"], body: Data(secret.utf8))
                }
            })
            var policy = RetryInterceptor.Policy()
            policy.baseDelay = .zero
            let client = RestingClient(
                baseUrl: "https://user:\(secret)@api.example.com", httpClient: stub,
                interceptors: [RetryInterceptor(policy: policy)], eventListener: .shared(recorder))
            let endpoint = Endpoint<Nothing, Data>(.get, "/start?\(query)=\(secret)")
            await #expect(throws: (any Error).self) {
                try await client.send(RestingRequest(endpoint: endpoint, headers: headers))
            }
            let leaked = recorder.all.filter { String(reflecting: $0).contains(secret) }
            #expect(leaked.isEmpty, "trial \(trial): \(leaked)")
            #expect(recorder.kinds.contains { if case .redirectFollowed = $0 { true } else { false } })
            #expect(recorder.kinds.contains { if case .retryScheduled = $0 { true } else { false } })
        }
    }

    @Test("without a listener, a request carries no reporter and nothing is made for it")
    func noListenerNoReporter() async throws {
        let seen = Locked<[Bool]>([])
        let client = RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: StubHTTPClient(fallback: { received in
                seen.withLock { $0.append(received.request.events == nil) }
                return .status(200)
            }))
        _ = try await client.send(RestingRequest(endpoint: Self.get))
        #expect(seen.withLock { $0 } == [true])
    }
}

extension CallEvent.Kind {
    /// The error type of a `callFailed` event; `nil` for any other.
    fileprivate var terminalErrorType: String? {
        if case .callFailed(let errorType, _) = self { errorType } else { nil }
    }
}
