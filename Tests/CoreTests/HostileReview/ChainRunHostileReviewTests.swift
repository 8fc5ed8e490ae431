import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

/// A hostile review of the rewritten interceptor chain (`ChainRun`, one object per descent with a bit per step): false
/// misuse errors on legitimate retries and hedges, missed misuse at every position of long chains, crashes on very
/// long chains, leaks of runs, cancellation in a hedge, and the order requests and responses pass the chain in.
@Suite("ChainRun: hostile review")
struct ChainRunHostileReviewTests {
    static let url = URL(string: "https://api.example.com/items")!
    static let request = HTTPRequest(method: .get, url: url)
    let getPost = Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query)

    // MARK: - Helpers

    /// Passes the request on, once.
    struct Pass: RestingInterceptor {
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            try await execution(request)
        }
    }

    /// Keeps every execution it is handed, under its position, and passes the request on.
    struct Keeper: RestingInterceptor {
        let position: Int
        let kept: Locked<[(Int, InterceptorExecution)]>
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            kept.withLock { $0.append((position, execution)) }
            return try await execution(request)
        }
    }

    /// Calls the rest of the chain `width` times at once, from child tasks, and returns the last answer.
    struct Fanout: RestingInterceptor {
        let width: Int
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            try await withThrowingTaskGroup(of: HTTPDataResponse.self) { group in
                for _ in 0..<width { group.addTask { try await execution(request) } }
                var last = HTTPDataResponse(status: 0)
                for try await response in group { last = response }
                return last
            }
        }
    }

    /// Checks it is passed in array order on the way out and in reverse on the way back.
    struct OrderCheck: RestingInterceptor {
        let index: Int
        let count: Int
        /// (next expected on the way out, next expected on the way back, mistakes)
        let state: Locked<(out: Int, back: Int, wrong: Int)>
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            state.withLock { state in
                if state.out != index { state.wrong += 1 }
                state.out += 1
            }
            let response = try await execution(request)
            state.withLock { state in
                if state.back != count - 1 - index { state.wrong += 1 }
                state.back += 1
            }
            return response
        }
    }

    /// A counting end of the chain.
    final class Counter: Sendable {
        let calls = Locked(0)
        var count: Int { calls.withLock { $0 } }
        let end: @Sendable (HTTPRequest) async throws -> HTTPDataResponse
        init() {
            let calls = calls
            end = { request in
                calls.withLock { $0 += 1 }
                return HTTPDataResponse(status: 200, url: request.url)
            }
        }
    }

    /// The error a call threw, or nil.
    static func failure(_ body: () async throws -> some Any) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    static func isMisuse(_ error: (any Error)?) -> Bool {
        if case .interceptorMisuse? = error as? RestingError { return true }
        return false
    }

    /// The run an execution goes on in (found by reflection: the execution keeps it privately).
    static func run(of execution: InterceptorExecution) -> AnyObject? {
        guard let next = Mirror(reflecting: execution).children.first(where: { $0.label == "next" })?.value,
            let payload = Mirror(reflecting: next).children.first?.value
        else { return nil }
        return Mirror(reflecting: payload).children.first.map { $0.value as AnyObject }
    }

    final class Weak: @unchecked Sendable {
        weak var object: AnyObject?
        init(_ object: AnyObject?) { self.object = object }
    }
}

// MARK: - No false misuse: legitimate retries and hedges

extension ChainRunHostileReviewTests {
    @Test("retries nested at three levels send every combination of attempts and are never called misuse")
    func nestedRetriesAtSeveralLevels() async throws {
        let stub = try answering()
        let log = Locked<[String]>([])
        let client = makeClient(
            stub,
            interceptors: [
                RepeatingInterceptor(times: 2), RecordingInterceptor(name: "a", log: log),
                RepeatingInterceptor(times: 3), Pass(), RepeatingInterceptor(times: 2),
                RecordingInterceptor(name: "z", log: log),
            ])
        #expect(try await client.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(stub.received.count == 12)
        #expect(log.withLock { $0.filter { $0 == "z response" }.count } == 12)
        #expect(log.withLock { $0.filter { $0 == "a response" }.count } == 2)
    }

    @Test("the last interceptor may retry many times: the transport is called each time")
    func retriesAtTheLastInterceptor() async throws {
        let stub = try answering()
        let client = makeClient(stub, interceptors: [Pass(), Pass(), RepeatingInterceptor(times: 7)])
        #expect(try await client.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(stub.received.count == 7)
    }

    @Test("one execution value called at once from 64 tasks, at two levels, reaches the end 64 × 4 times")
    func sameExecutionCalledConcurrentlyFromManyTasks() async throws {
        let counter = Counter()
        let response = try await ChainRun.start(
            [Pass(), Fanout(width: 64), Pass(), Fanout(width: 4), Pass()], from: 0, Self.request, end: counter.end)
        #expect(response.status == 200)
        #expect(counter.count == 256)
    }

    @Test("hedges and retries at the run boundaries (steps 62 to 66, 127, 128) of a long chain are no misuse")
    func hedgesAndRetriesAtRunBoundaries() async throws {
        let counter = Counter()
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 200)
        for position in [62, 63, 64, 65, 66, 127, 128] { interceptors[position] = Fanout(width: 2) }
        interceptors[199] = RepeatingInterceptor(times: 2)
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 256)
    }

    @Test("retries everywhere in a 130-step chain: every step retries once, 2^k attempts reach the end")
    func retriesEverywhereInALongChain() async throws {
        let counter = Counter()
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 130)
        for position in [0, 63, 64, 65, 127, 128, 129] { interceptors[position] = RepeatingInterceptor(times: 2) }
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 128)
    }

    @Test("one interceptor instance placed many times in one chain and shared by two clients called at once")
    func interceptorReusedInOneChainAndTwoClients() async throws {
        let stub = try answering()
        let repeating = RepeatingInterceptor(times: 2)
        let fanout = Fanout(width: 3)
        let interceptors: [any RestingInterceptor] = [repeating, fanout, repeating, fanout, repeating]
        let first = makeClient(stub, interceptors: interceptors)
        let second = makeClient(stub, interceptors: interceptors)
        try await withThrowingTaskGroup(of: Post.self) { group in
            for client in [first, second, first, second] {
                group.addTask { try await client.perform(RestingRequest(endpoint: getPost)).value.body }
            }
            for try await post in group { #expect(post == samplePost) }
        }
        let expected = 4 * 2 * 3 * 2 * 3 * 2
        #expect(stub.received.count == expected)
    }

    @Test("a network interceptor retrying on every redirect hop, below an application retry, is no misuse")
    func networkInterceptorsRetriedAcrossRedirects() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/a", .status(302, headers: ["Location": "/b"]))
        stub.register(.get, "/b", .status(301, headers: ["Location": "/c"]))
        stub.register(.get, "/c", .status(200))
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, interceptors: [RepeatingInterceptor(times: 2)],
            networkInterceptors: [Keeper(position: 0, kept: kept), RepeatingInterceptor(times: 2), Fanout(width: 2)])
        try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/a")))
        // Two calls, three hops each, each hop sent 2 × 2 times.
        #expect(stub.received.count == 2 * 3 * 4)
        #expect(stub.received.map(\.request.url.path).filter { $0 == "/c" }.count == 8)
        // Every hop's execution is refused once the hop is done.
        let executions = kept.withLock { $0 }
        #expect(executions.count == 6)
        for (_, execution) in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeper"))
        }
        #expect(stub.received.count == 24)
    }

    @Test("an interceptor below calling a kept execution of an interceptor above that is still running is no misuse")
    func reenteringAnExecutionOfAStepStillRunning() async throws {
        let counter = Counter()
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        struct Reenter: RestingInterceptor {
            let kept: Locked<[(Int, InterceptorExecution)]>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                guard request.headers["X-Again"] == nil else { return try await execution(request) }
                var again = request
                again.headers["X-Again"] = "1"
                let above = try #require(kept.withLock { $0.first?.1 })
                _ = try await above(again)
                return try await execution(request)
            }
        }
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 80)
        interceptors[5] = Keeper(position: 5, kept: kept)
        interceptors[70] = Reenter(kept: kept)
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 2)
    }

    @Test("an execution called before its interceptor returned may finish after it returned")
    func callStartedBeforeReturnFinishesAfter() async throws {
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let arrived = Collector<Int>()
        let late = Locked<Task<HTTPDataResponse, any Error>?>(nil)
        struct LeavesACallRunning: RestingInterceptor {
            let late: Locked<Task<HTTPDataResponse, any Error>?>
            let arrived: Collector<Int>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                let task = Task { try await execution(request) }
                late.withLock { $0 = task }
                await arrived.wait { $0.count == 1 }  // the call has reached the end
                return HTTPDataResponse(status: 299)
            }
        }
        let response = try await ChainRun.start(
            [Pass(), LeavesACallRunning(late: late, arrived: arrived), Pass(), RepeatingInterceptor(times: 1)],
            from: 0, Self.request
        ) { request in
            arrived.append(1)
            for await _ in release {}
            return HTTPDataResponse(status: 200, url: request.url)
        }
        #expect(response.status == 299)
        releaser.finish()
        let task = try #require(late.withLock { $0 })
        #expect(try await task.value.status == 200)
    }

    @Test("retries and hedges inside ResilienceLinks, below a retry and above a keeper, are never called misuse")
    func retriesAndHedgesInsideResilienceLinks() async throws {
        let sent = Locked(0)
        let transport = ClosureHTTPClient { request in
            sent.withLock { $0 += 1 }
            return HTTPDataResponse(status: 503, url: request.url)
        }
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .zero
        policy.maximumDelay = .zero
        policy.maximumAttempts = 3
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        let links = ResilienceLinks(
            retry: RetryInterceptor(policy: policy, budget: RetryBudget(ratio: 1, reserve: 1000)),
            hedging: HedgingInterceptor(
                delay: .fixed(.zero), maximumHedges: 2, budget: RetryBudget(ratio: 1, reserve: 1000)))
        let client = RestingClient(
            baseUrl: baseURL, httpClient: transport,
            interceptors: [RepeatingInterceptor(times: 2), links, Keeper(position: 2, kept: kept), Pass()])
        #expect(client.configurationError == nil)
        let error = await Self.failure {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/items")))
        }
        #expect(!Self.isMisuse(error), "got \(String(describing: error))")
        // Two calls × three attempts, each sent at least once.
        #expect(sent.withLock { $0 } >= 6)
        let executions = kept.withLock { $0 }
        let sentBefore = sent.withLock { $0 }
        #expect(executions.count >= sentBefore)
        for (_, execution) in executions { #expect(await refusedAsMisuse(execution, naming: "Keeper")) }
        #expect(sent.withLock { $0 } == sentBefore)
    }

    @Test("requests go down and responses come up in order on the retry and short-circuit paths")
    func orderOnRetryAndShortCircuitPaths() async throws {
        struct Answers: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                HTTPDataResponse(status: 204, url: request.url)
            }
        }
        let log = Locked<[String]>([])
        let counter = Counter()
        let chain: [any RestingInterceptor] = [
            RecordingInterceptor(name: "a", log: log), RepeatingInterceptor(times: 2),
            RecordingInterceptor(name: "b", log: log), RecordingInterceptor(name: "c", log: log),
        ]
        _ = try await ChainRun.start(chain, from: 0, Self.request, end: counter.end)
        #expect(
            log.withLock { $0 } == [
                "a request", "b request", "c request", "c response", "b response",
                "b request", "c request", "c response", "b response", "a response",
            ])
        log.withLock { $0 = [] }
        let response = try await ChainRun.start(
            [RecordingInterceptor(name: "a", log: log), Answers(), RecordingInterceptor(name: "b", log: log)], from: 0,
            Self.request, end: counter.end)
        #expect(response.status == 204)
        #expect(log.withLock { $0 } == ["a request", "a response"])
        #expect(counter.count == 2)
    }

    @Test("cancelling a call in the middle of a hedge fails it as cancelled, not as a misuse")
    func cancellationInTheMiddleOfAHedge() async throws {
        let arrived = Collector<Int>()
        let (never, keepOpen) = AsyncStream<Void>.makeStream()
        defer { keepOpen.finish() }
        let transport = ClosureHTTPClient { _ in
            arrived.append(1)
            for await _ in never {}
            throw CancellationError()
        }
        let client = RestingClient(
            baseUrl: baseURL, httpClient: transport,
            interceptors: [Pass(), Fanout(width: 3), Pass(), RepeatingInterceptor(times: 1)])
        let call = Task {
            await Self.failure {
                try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/items")))
            }
        }
        await arrived.wait { $0.count == 3 }
        call.cancel()
        let error = await call.value
        guard case .cancelled? = error as? RestingError else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }
}

// MARK: - No missed misuse

extension ChainRunHostileReviewTests {
    static let positions = [0, 1, 62, 63, 64, 65, 66, 126, 127, 128, 129, 190, 191, 192, 255, 256, 299]

    func keptChain(length: Int = 300, retrying: [Int: Int] = [:], fanning: [Int: Int] = [:])
        -> ([any RestingInterceptor], Locked<[(Int, InterceptorExecution)]>)
    {
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: length)
        for position in Self.positions where position < length {
            interceptors[position] = Keeper(position: position, kept: kept)
        }
        for (position, times) in retrying { interceptors[position] = RepeatingInterceptor(times: times) }
        for (position, width) in fanning { interceptors[position] = Fanout(width: width) }
        return (interceptors, kept)
    }

    @Test("an execution kept at any position of a 300-step chain is refused after return, without reaching the end")
    func lateExecutionsAtEveryPositionAreRefused() async throws {
        let counter = Counter()
        let (interceptors, kept) = keptChain()
        defer { kept.withLock { $0 = [] } }
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        let executions = kept.withLock { $0 }
        #expect(executions.map(\.0) == Self.positions)
        for (position, execution) in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeper"), "position \(position)")
        }
        #expect(counter.count == 1)
    }

    @Test(
        "a lone keeper at offset + 64k (up to 140) of a 141-step chain refuses its execution after return",
        arguments: [0, 1, 2, 61, 62, 63])
    func lateExecutionAtEachSinglePosition(offset: Int) async throws {
        // A chain whose only keeper stands at `position`, for every position of one residue class.
        for position in stride(from: offset, through: 140, by: 64) {
            let counter = Counter()
            let kept = Locked<[(Int, InterceptorExecution)]>([])
            var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 141)
            interceptors[position] = Keeper(position: position, kept: kept)
            _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
            let execution = try #require(kept.withLock { $0.first?.1 })
            kept.withLock { $0 = [] }
            #expect(await refusedAsMisuse(execution, naming: "Keeper"), "position \(position)")
            #expect(counter.count == 1)
        }
    }

    @Test(
        "executions kept in the attempts of a retry are all refused after return, wherever the retry stands",
        arguments: [0, 62, 63, 64, 65, 127, 128])
    func lateExecutionsOfRetriesAreRefused(retryAt: Int) async throws {
        let counter = Counter()
        let (interceptors, kept) = keptChain(retrying: [retryAt: 3])
        defer { kept.withLock { $0 = [] } }
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 3)
        let executions = kept.withLock { $0 }
        let above = Self.positions.filter { $0 < retryAt }.count
        let below = Self.positions.filter { $0 > retryAt }.count
        #expect(executions.count == above + 3 * below)
        for (position, execution) in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeper"), "position \(position)")
        }
        #expect(counter.count == 3)
    }

    @Test(
        "executions kept in the branches of a hedge are all refused after return, wherever the hedge stands",
        arguments: [0, 63, 64, 127])
    func lateExecutionsOfHedgesAreRefused(hedgeAt: Int) async throws {
        let counter = Counter()
        let (interceptors, kept) = keptChain(fanning: [hedgeAt: 4])
        defer { kept.withLock { $0 = [] } }
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 4)
        let executions = kept.withLock { $0 }
        for (position, execution) in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeper"), "position \(position)")
        }
        #expect(counter.count == 4)
    }

    @Test("an interceptor that retried and hedged with its execution has it refused once it returned")
    func lateExecutionOfARetryingInterceptorIsRefused() async throws {
        struct RetriesAndKeeps: RestingInterceptor {
            let kept: Locked<[(Int, InterceptorExecution)]>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                kept.withLock { $0.append((-1, execution)) }
                _ = try await execution(request)
                _ = try await Fanout(width: 3).intercept(request: request, execution: execution)
                return try await execution(request)
            }
        }
        for position in [0, 63, 64, 65] {
            let counter = Counter()
            let kept = Locked<[(Int, InterceptorExecution)]>([])
            var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 70)
            interceptors[position] = RetriesAndKeeps(kept: kept)
            _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
            #expect(counter.count == 5)
            let execution = try #require(kept.withLock { $0.first?.1 })
            kept.withLock { $0 = [] }
            #expect(await refusedAsMisuse(execution, naming: "RetriesAndKeeps"), "position \(position)")
            #expect(counter.count == 5)
        }
    }

    @Test("a kept execution called at once from 32 detached tasks is refused in each")
    func lateExecutionCalledConcurrentlyIsRefusedEverywhere() async throws {
        let counter = Counter()
        let (interceptors, kept) = keptChain(length: 130)
        defer { kept.withLock { $0 = [] } }
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        let executions = kept.withLock { $0.map(\.1) }
        let refused = await withTaskGroup(of: Bool.self) { group in
            for execution in executions {
                for _ in 0..<32 {
                    group.addTask {
                        await Task.detached { await refusedAsMisuse(execution, naming: "Keeper") }.value
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(refused == executions.count * 32)
        #expect(counter.count == 1)
    }

    @Test("an interceptor that throws after calling its execution fails the call, and its execution is refused after")
    func throwingAfterCallingExecution() async throws {
        struct Boom: Error {}
        struct ThrowsAfter: RestingInterceptor {
            let kept: Locked<[(Int, InterceptorExecution)]>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                kept.withLock { $0.append((-1, execution)) }
                _ = try await execution(request)
                throw Boom()
            }
        }
        let counter = Counter()
        let log = Locked<[String]>([])
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 70)
        interceptors[0] = RecordingInterceptor(name: "top", log: log)
        interceptors[64] = ThrowsAfter(kept: kept)
        let error = await Self.failure {
            try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        }
        #expect(error is Boom)
        #expect(log.withLock { $0 } == ["top request"])
        let execution = try #require(kept.withLock { $0.first?.1 })
        #expect(await refusedAsMisuse(execution, naming: "ThrowsAfter"))
        #expect(counter.count == 1)
    }

    @Test("an execution kept by a client's interceptor and called from a detached task after shutdown is refused")
    func lateExecutionAfterShutdown() async throws {
        let stub = try answering()
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        var client: RestingClient? = makeClient(
            stub, interceptors: [Pass(), Keeper(position: 1, kept: kept), Keeper(position: 2, kept: kept)])
        _ = try await client?.perform(RestingRequest(endpoint: getPost)).value
        await client?.shutdown()
        client = nil
        for (_, execution) in kept.withLock({ $0 }) {
            let refused = await Task.detached { await refusedAsMisuse(execution, naming: "Keeper") }.value
            #expect(refused)
        }
        #expect(stub.received.count == 1)
    }

    @Test("an execution handed out in a composed chain inside an interceptor is refused once that one returned")
    func lateExecutionAroundAComposedChain() async throws {
        let counter = Counter()
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        struct Composing: RestingInterceptor {
            let inner: [any RestingInterceptor]
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                try await InterceptorChain.runComposed(inner, request) { try await execution($0) }
            }
        }
        var inner: [any RestingInterceptor] = Array(repeating: Pass(), count: 66)
        inner[64] = Keeper(position: 64, kept: kept)
        inner[65] = RepeatingInterceptor(times: 2)
        let interceptors: [any RestingInterceptor] = [
            Keeper(position: 0, kept: kept), Composing(inner: inner), Keeper(position: 2, kept: kept),
        ]
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 2)
        let executions = kept.withLock { $0 }
        #expect(executions.map(\.0).sorted() == [0, 2, 2, 64])
        for (position, execution) in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeper"), "position \(position)")
        }
        #expect(counter.count == 2)
    }
}

// MARK: - Size, memory and locks

extension ChainRunHostileReviewTests {
    @Test("a chain of 20,000 interceptors passes each in order, both ways, and refuses a late execution at its end")
    func hugeChain() async throws {
        let count = 20_000
        let state = Locked((out: 0, back: 0, wrong: 0))
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        defer { kept.withLock { $0 = [] } }
        var interceptors: [any RestingInterceptor] = (0..<count).map {
            OrderCheck(index: $0, count: count, state: state)
        }
        interceptors.append(Keeper(position: count, kept: kept))
        let counter = Counter()
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        let (out, back, wrong) = state.withLock { $0 }
        #expect(out == count)
        #expect(back == count)
        #expect(wrong == 0)
        let execution = try #require(kept.withLock { $0.first?.1 })
        #expect(await refusedAsMisuse(execution, naming: "Keeper"))
        #expect(counter.count == 1)
    }

    @Test("a chain of 3,000 interceptors runs through a client, with a retry at the top")
    func hugeChainThroughAClient() async throws {
        let stub = try answering()
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 3_000)
        interceptors[0] = RepeatingInterceptor(times: 2)
        interceptors[2_999] = RepeatingInterceptor(times: 2)
        let client = makeClient(stub, interceptors: interceptors)
        #expect(try await client.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(stub.received.count == 4)
    }

    @Test("the runs of 5,000 retries are freed once the executions kept in them are dropped")
    func runsOfManyRetriesAreFreed() async throws {
        let counter = Counter()
        let kept = Locked<[(Int, InterceptorExecution)]>([])
        var interceptors: [any RestingInterceptor] = Array(repeating: Pass(), count: 70)
        interceptors[0] = RepeatingInterceptor(times: 5_000)
        interceptors[66] = Keeper(position: 66, kept: kept)
        _ = try await ChainRun.start(interceptors, from: 0, Self.request, end: counter.end)
        #expect(counter.count == 5_000)
        let runs = kept.withLock { $0.map { Weak(Self.run(of: $0.1)) } }
        #expect(runs.count == 5_000)
        #expect(runs.allSatisfy { $0.object != nil }, "reflection found each execution's run")
        // A run of its own for each attempt's keeper.
        #expect(Set(runs.compactMap { $0.object.map(ObjectIdentifier.init) }).count == 5_000)
        kept.withLock { $0 = [] }
        #expect(runs.allSatisfy { $0.object == nil })
    }

    @Test("a call's runs and interceptors are freed with the client once it is done")
    func nothingOutlivesTheClient() async throws {
        final class Probe: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                try await execution(request)
            }
        }
        let stub = try answering()
        var probe: Probe? = Probe()
        let weakProbe = Weak(probe)
        var client: RestingClient? = makeClient(
            stub, interceptors: [RepeatingInterceptor(times: 3), probe!, Fanout(width: 2), probe!])
        probe = nil
        for _ in 0..<10 { _ = try await client?.perform(RestingRequest(endpoint: getPost)).value }
        #expect(stub.received.count == 60)
        client = nil
        #expect(weakProbe.object == nil)
    }

    @Test("Locked (glibc's adaptive mutex) counts exactly under contention from many tasks")
    func lockedUnderContention() async {
        let locked = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask { for _ in 0..<20_000 { locked.withLock { $0 += 1 } } }
            }
        }
        #expect(locked.withLock { $0 } == 16 * 20_000)
    }
}
