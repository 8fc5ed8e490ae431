import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// A transport that answers at once and records, for each request, the task it ran in and whether it ran on its
/// executor.
final class TaskRecordingTransport: HTTPClient {
    struct Visit: Sendable {
        let task: Int?
        let onExecutor: Bool
    }

    let visits = Collector<Visit>()
    private let queueExecutor: QueueExecutor?

    init(executor: QueueExecutor? = nil) { queueExecutor = executor }

    var executor: (any TaskExecutor)? { queueExecutor }

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        visits.append(Visit(task: currentTask(), onExecutor: queueExecutor?.isCurrent == true))
        return HTTPDataResponse(status: 200, body: ResponseBody(Data("{}".utf8)), url: request.url)
    }
}

/// Records its name on the way out.
struct NameRecorder: RestingInterceptor {
    let log: Collector<String>
    let name: String

    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        log.append(name)
        return try await execution(request)
    }
}

/// An identity of the task that runs the caller.
func currentTask() -> Int? { withUnsafeCurrentTask { $0?.hashValue } }

@Suite("send: the pipeline awaited in the calling task", .timeLimit(.minutes(5)))
struct SendTests {
    let stub = StubHTTPClient()
    let endpoint = Endpoint<Nothing, Nothing>(.get, "/item/{{n}}", encoding: .query)

    @Test("send decodes a 2xx response as perform does, through the same interceptors")
    func decodesLikePerform() async throws {
        stub.register(.get, "/posts/1", try .json(samplePost))
        let seen = Collector<String>()
        let client = makeClient(
            stub, interceptors: [NameRecorder(log: seen, name: "outer"), NameRecorder(log: seen, name: "inner")])
        let request = RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query))
        let sent = try await client.send(request)
        let performed = try await client.perform(request).value
        #expect(sent.body == samplePost && sent.status == 200 && sent.headers["content-type"] == "application/json")
        #expect(performed.body == sent.body && performed.status == sent.status)
        #expect(seen.all == ["outer", "inner", "outer", "inner"])
    }

    @Test("send fails with the typed errors perform fails with")
    func typedErrors() async throws {
        let client = makeClient(stub)
        stub.register(.get, "/posts/9", .status(404, body: Data(#"{"error":"gone","status":404}"#.utf8)))
        let notFound = await restingError {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/9", encoding: .query)))
        }
        guard case .httpError(let error) = notFound else {
            Issue.record("got \(String(describing: notFound))")
            return
        }
        #expect(try error.decodeBody(as: APIError.self) == APIError(error: "gone", status: 404))

        let missing = await restingError { try await client.send(RestingRequest(endpoint: endpoint)) }
        guard case .missingPathVariable(name: "n", _) = missing else {
            Issue.record("got \(String(describing: missing))")
            return
        }

        stub.register(.get, "/posts/2", .status(200, body: Data("not json".utf8)))
        let undecodable = await restingError {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/2", encoding: .query)))
        }
        guard case .decodingFailed(_, _, let body) = undecodable else {
            Issue.record("got \(String(describing: undecodable))")
            return
        }
        #expect(body == Data("not json".utf8))
        #expect(stub.received.count == 2, "the call with a missing path variable never reached the transport")
    }

    @Test("send runs the pipeline in the calling task; perform runs it in a task of its own")
    func runsInTheCallingTask() async throws {
        let transport = TaskRecordingTransport()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport)
        let request = RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])
        _ = try await client.send(request)
        _ = try await client.perform(request).value
        let visits = transport.visits.all
        #expect(visits.count == 2)
        #expect(visits.first?.task == currentTask())
        #expect(visits.last?.task != currentTask())
    }

    @Test("send runs on the transport's executor, even from a task that prefers no executor")
    func runsOnTheTransportsExecutor() async throws {
        let transport = TaskRecordingTransport(executor: QueueExecutor())
        let client = RestingClient(baseUrl: baseURL, httpClient: transport)
        _ = try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1]))
        #expect(transport.visits.all.map(\.onExecutor) == [true])
    }

    @Test("cancelling the calling task cancels the call, which fails with .cancelled")
    func cancellingTheCallingTask() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport)
        let caller = Task { try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])) }
        await transport.started.wait { $0.count == 1 }
        caller.cancel()
        transport.releaseAll()  // the held request sees its cancellation when it resumes
        guard case .cancelled = await Result(catching: { try await caller.value }).failure else {
            Issue.record("the call must fail with .cancelled")
            return
        }
    }

    @Test("a send from a task cancelled already fails with .cancelled and never reaches the transport")
    func cancelledBeforeItStarts() async throws {
        let transport = TaskRecordingTransport()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport)
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1]))
        }
        guard case .cancelled = await Result(catching: { try await caller.value }).failure else {
            Issue.record("the call must fail with .cancelled")
            return
        }
        #expect(transport.visits.all.isEmpty)
    }

    @Test("cancelAll cancels a running send, and with it the task that awaits it")
    func cancelAllReachesASend() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport)
        let caller = Task {
            let outcome = await Result(catching: {
                try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1]))
            })
            return (outcome.failure, Task.isCancelled)
        }
        await transport.started.wait { $0.count == 1 }
        client.cancelAll()
        transport.releaseAll()
        let (error, taskCancelled) = await caller.value
        guard case .cancelled = error else {
            Issue.record("the call must fail with .cancelled, got \(String(describing: error))")
            return
        }
        #expect(taskCancelled, "cancelAll cancels the task the call ran in")
        #expect(client.calls.count == 0, "a settled send leaves nothing in the registry")
    }

    @Test("a send that has returned is out of cancelAll's reach: the task that made it goes on uncancelled")
    func returnedSendIsNotCancelled() async throws {
        let client = RestingClient(baseUrl: baseURL, httpClient: TaskRecordingTransport())
        let request = RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])
        for _ in 0..<3 { _ = try await client.send(request) }
        client.cancelAll()
        #expect(!Task.isCancelled)
        #expect(try await client.send(request).status == 200)
    }

    @Test("send waits for a slot of the concurrency limit, in order, and cancelAll reaches the waiting sends too")
    func concurrencyLimit() async throws {
        let transport = HoldingTransport()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport, concurrency: .serial)
        let first = Task { try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])) }
        await transport.started.wait { $0.count == 1 }
        let second = Task { try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 2])) }
        while client.queuedCount != 1 { await Task.yield() }
        transport.releaseAll()
        _ = try await first.value
        await transport.started.wait { $0.count == 2 }
        #expect(transport.mostInFlight == 1)

        let third = Task { try await client.send(RestingRequest(endpoint: endpoint, pathVariables: ["n": 3])) }
        while client.queuedCount != 1 { await Task.yield() }
        client.cancelAll()
        transport.releaseAll()
        for caller in [second, third] {
            guard case .cancelled = await Result(catching: { try await caller.value }).failure else {
                Issue.record("every call must fail with .cancelled")
                continue
            }
        }
        #expect(transport.started.all == ["1", "2"], "the queued call never started")
    }

    @Test("a streaming endpoint answers through send with the head, its body still flowing")
    func streamingEndpoint() async throws {
        stub.register(.get, "/feed", .stream([.text("one\n"), .pause(.milliseconds(5)), .text("two\n")]))
        let lines = Endpoint<Nothing, ResponseLines>(.get, "/feed", encoding: .query)
        let response = try await makeClient(stub).send(RestingRequest(endpoint: lines))
        var received: [String] = []
        for try await line in response.body { received.append(line) }
        #expect(response.status == 200 && received == ["one", "two"])
    }
}
