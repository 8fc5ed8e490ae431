import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// A pass through the chain shares one object between the steps it passes (`ChainRun`): what each step's execution
/// must still do when an interceptor above it calls its own execution again, or at the same time, and when the chain
/// is longer than one run covers.
@Suite("Interceptor chain: one run per descent")
struct ChainRunTests {
    let getPost = Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query)

    /// Calls the rest of the chain twice at once; the first attempt's response must be back before the second
    /// attempt may go on past `gate`.
    struct Hedging: RestingInterceptor {
        let gate: SecondWaitsForTheFirst
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            try await withThrowingTaskGroup(of: HTTPDataResponse.self) { group in
                group.addTask { try await execution(request) }
                group.addTask { try await execution(request) }
                _ = try await group.next()
                gate.firstCameBack()
                return try await group.next() ?? HTTPDataResponse(status: 0)
            }
        }
    }

    /// Lets the first request through at once, and holds the second until the test says the first came back.
    final class SecondWaitsForTheFirst: RestingInterceptor {
        private let arrivals = Locked(0)
        private let (cameBack, signal) = AsyncStream<Void>.makeStream()

        func firstCameBack() { signal.finish() }

        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            let isFirst = arrivals.withLock { arrivals in
                arrivals += 1
                return arrivals == 1
            }
            if !isFirst {
                for await _ in cameBack {}
            }
            return try await execution(request)
        }
    }

    /// Keeps every execution it is handed.
    struct Keeping: RestingInterceptor {
        let kept: Locked<[InterceptorExecution]>
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            kept.withLock { $0.append(execution) }
            return try await execution(request)
        }
    }

    @Test("the interceptors below a retrying one pass every attempt on, not only the first")
    func everyAttemptGoesThrough() async throws {
        let stub = try answering()
        let log = Locked<[String]>([])
        let client = makeClient(
            stub,
            interceptors: [
                RepeatingInterceptor(times: 3), RecordingInterceptor(name: "below", log: log),
                RecordingInterceptor(name: "bottom", log: log),
            ])
        #expect(try await client.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(stub.received.count == 3)
        #expect(log.withLock { $0.filter { $0 == "bottom response" }.count } == 3)
    }

    @Test("a hedge's second attempt goes on past an interceptor whose first attempt has already returned")
    func hedgesKeepStepsOfTheirOwn() async throws {
        let stub = try answering()
        let gate = SecondWaitsForTheFirst()
        let client = makeClient(
            stub, interceptors: [Hedging(gate: gate), gate, RecordingInterceptor(name: "bottom", log: Locked([]))])
        #expect(try await client.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(stub.received.count == 2)
    }

    @Test("every attempt's execution below a retrying interceptor is refused once its interceptor has returned")
    func lateExecutionsOfEveryAttemptAreRefused() async throws {
        let kept = Locked<[InterceptorExecution]>([])
        let stub = try answering()
        _ = try await makeClient(stub, interceptors: [RepeatingInterceptor(times: 2), Keeping(kept: kept)]).perform(
            RestingRequest(endpoint: getPost)
        ).value
        let executions = kept.withLock { $0 }
        // The stored executions hold the chain, which holds the interceptor, which holds the store.
        defer { kept.withLock { $0 = [] } }
        #expect(executions.count == 2)
        for execution in executions {
            #expect(await refusedAsMisuse(execution, naming: "Keeping"))
        }
        #expect(stub.received.count == 2)
    }

    @Test("a chain longer than one run covers passes every interceptor, in order, and still refuses a late execution")
    func chainsLongerThanARun() async throws {
        let stub = try answering()
        let log = Locked<[String]>([])
        let kept = Locked<[InterceptorExecution]>([])
        let count = ChainRun.capacity * 2 + 3
        var interceptors: [any RestingInterceptor] = (0..<count).map {
            RecordingInterceptor(name: "\($0)", log: log)
        }
        interceptors.insert(Keeping(kept: kept), at: ChainRun.capacity + 5)
        _ = try await makeClient(stub, interceptors: interceptors).perform(RestingRequest(endpoint: getPost)).value
        defer { kept.withLock { $0 = [] } }
        let passed = try #require(stub.received.first).request.headers.values(for: "X-Passed")
        #expect(passed == (0..<count).map { "\($0)" })
        let execution = try #require(kept.withLock { $0.first })
        #expect(await refusedAsMisuse(execution, naming: "Keeping"))
        #expect(stub.received.count == 1)
    }
}

/// A stub that answers `GET /posts/1` with the sample post.
func answering() throws -> StubHTTPClient {
    let stub = StubHTTPClient()
    stub.register(.get, "/posts/1", try .json(samplePost))
    return stub
}

/// Calls `execution` — its interceptor having returned — and says whether it was refused as a misuse naming
/// `interceptor`.
func refusedAsMisuse(_ execution: InterceptorExecution, naming interceptor: String) async -> Bool {
    do {
        _ = try await execution(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/late")!))
        return false
    } catch RestingError.interceptorMisuse(let named, _) {
        return named == interceptor
    } catch {
        return false
    }
}
