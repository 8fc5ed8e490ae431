import Dispatch
import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import Testing

// A hostile review of 61ef7c8 ("a call's stages run on their caller's executor"): the chain, the redirect follower,
// the exchange, the status check and every ending are `nonisolated(nonsending)`. These tests run calls through
// CurlClient (the transport with an executor of its own) against the conformance server, from the main actor and
// from a custom actor, with interceptors that hop to an actor before passing the request on.

/// Where some code ran: the thread's name and whether it is the main thread.
struct IsolationThreadNote: Sendable, CustomStringConvertible {
    let name: String?
    /// On the main thread, or draining the main queue (the main actor's executor, which on Linux under
    /// `dispatchMain` runs on a worker thread).
    let isMain: Bool
    var description: String { "\(name ?? "unnamed")\(isMain ? " (main)" : "")" }
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    /// The calling thread (synchronous: `Thread.current` is for synchronous code).
    static func here() -> IsolationThreadNote {
        IsolationThreadNote(
            name: Thread.current.name,
            isMain: Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true)
    }
}

/// A body that notes the thread it is decoded on.
struct IsolationRecordingBody: Decodable, Sendable {
    let padding: String
    let decodedOn: IsolationThreadNote

    init(from decoder: any Decoder) throws {
        padding = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .padding)
        decodedOn = .here()
    }

    enum CodingKeys: String, CodingKey { case padding }
}

/// A body that accepts any JSON.
struct IsolationAnyBody: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// Hands the rest of the chain to the main actor: `execution` is called from `@MainActor` code.
private struct MainActorHop: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await Self.onMain(request, execution)
    }

    @MainActor static func onMain(_ request: HTTPRequest, _ execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await execution(request)
    }
}

/// A custom actor an interceptor hands the rest of the chain to.
private actor Gate {
    private(set) var passes = 0
    func pass(_ request: HTTPRequest, _ execution: InterceptorExecution) async throws -> HTTPDataResponse {
        passes += 1
        return try await execution(request)
    }
}

/// Hands the rest of the chain to `gate`.
private struct ActorHop: RestingInterceptor {
    let gate: Gate
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await gate.pass(request, execution)
    }
}

/// Notes the thread it runs on, then passes the request on: `nonisolated(nonsending)`, as every interceptor
/// RestingKit ships is.
private struct NonsendingRecorder: RestingInterceptor {
    let notes: Locked<[IsolationThreadNote]>
    nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        notes.withLock { $0.append(.here()) }
        return try await execution(request)
    }
}

/// Notes the thread it runs on, then passes the request on: a plain `func intercept`.
private struct PlainRecorder: RestingInterceptor {
    let notes: Locked<[IsolationThreadNote]>
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        notes.withLock { $0.append(.here()) }
        return try await execution(request)
    }
}

/// A network interceptor that asks the main queue for something (a UI setting, say) and waits for it: fine on any
/// thread but the main one, where the main queue can never run the block it waits for.
private struct AsksTheMainQueue: RestingInterceptor {
    let timedOut: Locked<Int>
    nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        if !Self.askMainQueue() { timedOut.withLock { $0 += 1 } }
        return try await execution(request)
    }

    /// Whether the main queue answered: never when asked from the main thread itself — the deadlock, told without
    /// waiting for it. Elsewhere the wait is bounded only so that a defect fails the test rather than hang it: a main
    /// actor kept busy by the rest of the suite under a sanitizer answers well inside it, but not always within 30 s.
    static func askMainQueue() -> Bool {
        guard !Thread.isMainThread else { return false }
        let answered = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { answered.signal() }
        return answered.wait(timeout: .now() + .seconds(240)) == .success
    }
}

/// Cancels the task it runs in before passing the request on.
private struct CancelsItsTask: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        try await Self.onMain(request, execution)
    }

    @MainActor static func onMain(_ request: HTTPRequest, _ execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await execution(request)
    }
}

/// Reads a task-local and the task's priority in the chain.
private struct TaskLocalReader: RestingInterceptor {
    let seen: Locked<[(String?, TaskPriority)]>
    nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        seen.withLock { $0.append((IsolationHostileReviewTests.marker, Task.currentPriority)) }
        return try await execution(request)
    }
}

// Five minutes, as every suite that runs under the sanitizers: with ThreadSanitizer and the whole suite on two cores,
// every test here took over a minute, waiting for the main actor and the cooperative pool.
@Suite("Isolation of a call's stages (61ef7c8): hostile review", .timeLimit(.minutes(5)))
struct IsolationHostileReviewTests {
    @TaskLocal static var marker: String?

    static func client(
        interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor] = [],
        transport configuration: CurlConfiguration = CurlConfiguration()
    ) async throws -> (RestingClient, LocalServer) {
        let server = try await LocalServer.sharedConformanceServer.value
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: try CurlClient(configuration: configuration),
            interceptors: interceptors,
            networkInterceptors: networkInterceptors)
        return (client, server)
    }

    static let json = Endpoint<Nothing, IsolationRecordingBody>(.get, "/json/{{size}}", encoding: .query)
    static let chain = Endpoint<Nothing, IsolationAnyBody>(.get, "/chain/{{hops}}", encoding: .query)

    // MARK: - Where the stages run

    // The pipeline runs on the transport's executor. An application interceptor that passes the request on from the
    // main actor (a UI-bound token or consent check) must not drag the redirect follower, the network interceptors
    // written `nonisolated(nonsending)` (all of RestingKit's: the HTTP cache, cookies, auth, logging, metrics,
    // tracing) and the boundary check onto the main thread: the chain's end is a closure of the default isolation,
    // which goes back to the call's executor. (61ef7c8 had made it the caller's, and these ran on the main thread, once
    // per redirect hop; found by this review, fixed before landing.)
    @Test("network interceptors stay on the transport's thread when an application interceptor hops to the main actor")
    func networkInterceptorsAfterAMainActorHop() async throws {
        let notes = Locked<[IsolationThreadNote]>([])
        let (client, _) = try await Self.client(
            interceptors: [MainActorHop()], networkInterceptors: [NonsendingRecorder(notes: notes)])
        _ = try await client.send(RestingRequest(endpoint: Self.chain, pathVariables: ["hops": 2]))
        let seen = notes.withLock { $0 }
        #expect(seen.count == 3, "three hops: \(seen)")
        #expect(seen.allSatisfy { !$0.isMain }, "a network interceptor ran on the main thread: \(seen)")
        #expect(seen.allSatisfy { $0.name == "RestingKit.curl" }, "off the transport's thread: \(seen)")
    }

    // What that guards: a network interceptor that waits (boundedly here) for the main queue — legitimate off the main
    // thread, where it always runs — would run on the main thread itself after an application interceptor hopped
    // there, and the main queue could never answer: a deadlock of the main thread.
    @Test("a network interceptor that waits for the main queue does not deadlock after a main-actor hop")
    func networkInterceptorWaitingForTheMainQueue() async throws {
        let timedOut = Locked(0)
        let (client, _) = try await Self.client(
            interceptors: [MainActorHop()], networkInterceptors: [AsksTheMainQueue(timedOut: timedOut)])
        _ = try await client.send(RestingRequest(endpoint: Self.chain, pathVariables: ["hops": 0]))
        #expect(timedOut.withLock { $0 } == 0, "the main queue never answered: the interceptor ran on the main thread")
    }

    @Test("without a hop, network interceptors (plain and nonsending) run on the transport's thread for every hop")
    func networkInterceptorsWithoutAHop() async throws {
        let nonsending = Locked<[IsolationThreadNote]>([])
        let plain = Locked<[IsolationThreadNote]>([])
        let (client, _) = try await Self.client(
            networkInterceptors: [NonsendingRecorder(notes: nonsending), PlainRecorder(notes: plain)])
        _ = try await client.send(RestingRequest(endpoint: Self.chain, pathVariables: ["hops": 3]))
        let seen = nonsending.withLock { $0 } + plain.withLock { $0 }
        #expect(seen.count == 8, "\(seen)")
        #expect(seen.allSatisfy { $0.name == "RestingKit.curl" }, "\(seen)")
    }

    @MainActor
    @Test(
        "calls from the main actor through main-actor, actor and plain interceptors complete; decoding stays off main")
    func fromTheMainActor() async throws {
        let gate = Gate()
        let plain = Locked<[IsolationThreadNote]>([])
        let (client, _) = try await Self.client(
            interceptors: [MainActorHop(), ActorHop(gate: gate), PlainRecorder(notes: plain), MainActorHop()])
        for size in [100, 100_000] {
            let request = RestingRequest(endpoint: Self.json, pathVariables: ["size": size])
            let sent = try await client.send(request).body
            let performed = try await client.perform(request).value.body
            for body in [sent, performed] {
                #expect(body.padding.count == size)
                #expect(!body.decodedOn.isMain, "size \(size) decoded on the main thread")
                if size > 64 * 1024 {
                    #expect(body.decodedOn.name != "RestingKit.curl", "a large body held up the transport's thread")
                } else {
                    #expect(body.decodedOn.name == "RestingKit.curl", "\(body.decodedOn)")
                }
            }
        }
        #expect(await gate.passes == 4)
        #expect(plain.withLock { $0 }.allSatisfy { !$0.isMain })
    }

    @Test("calls awaited from a custom actor, with the chain handed to that actor, complete; decoding off the actor")
    func fromACustomActor() async throws {
        actor Caller {
            func call(_ client: RestingClient, size: Int) async throws -> (IsolationThreadNote, IsolationThreadNote) {
                let request = RestingRequest(endpoint: IsolationHostileReviewTests.json, pathVariables: ["size": size])
                let sent = try await client.send(request).body.decodedOn
                let performed = try await client.perform(request).value.body.decodedOn
                return (sent, performed)
            }
        }
        let gate = Gate()
        let (client, _) = try await Self.client(interceptors: [ActorHop(gate: gate)])
        let caller = Caller()
        let small = try await caller.call(client, size: 10)
        let large = try await caller.call(client, size: 70_000)
        #expect(small.0.name == "RestingKit.curl" && small.1.name == "RestingKit.curl", "\(small)")
        #expect(large.0.name != "RestingKit.curl" && large.1.name != "RestingKit.curl", "\(large)")
    }

    @MainActor
    @Test("a call whose interceptor hops to the main actor completes while the main actor is busy awaiting other calls")
    func mainActorBusyAwaiting() async throws {
        let (client, _) = try await Self.client(interceptors: [MainActorHop()], networkInterceptors: [MainActorHop()])
        var tasks: [Task<Int, any Error>] = []
        for size in 0..<16 {
            let request = RestingRequest(endpoint: Self.json, pathVariables: ["size": size * 10_000])
            tasks.append(Task { @MainActor in try await client.perform(request).value.body.padding.count })
        }
        var total = 0
        for task in tasks { total += try await task.value }
        #expect(total == (0..<16).reduce(0) { $0 + $1 * 10_000 })
    }

    // MARK: - Redirects

    // The same for a plain `func intercept` network interceptor, for every redirect hop, whatever the status: each
    // runs on the transport's thread although an application interceptor passed the request on from the main actor.
    @MainActor
    @Test("redirect chains of every status through a main-actor hop", arguments: [301, 302, 303, 307, 308])
    func redirectStatuses(_ status: Int) async throws {
        let notes = Locked<[IsolationThreadNote]>([])
        let (client, _) = try await Self.client(
            interceptors: [MainActorHop()], networkInterceptors: [PlainRecorder(notes: notes)])
        let endpoint = Endpoint<Nothing, IsolationAnyBody>(.get, "/redirect/{{status}}", encoding: .query)
        let response = try await client.send(
            RestingRequest(
                endpoint: endpoint, pathVariables: ["status": status],
                queryItems: [URLQueryItem(name: "to", value: "/chain/1")]))
        #expect(response.status == 200)
        #expect(notes.withLock { $0.count } == 3)
        #expect(notes.withLock { $0 }.allSatisfy { $0.name == "RestingKit.curl" }, "\(notes.withLock { $0 })")
    }

    @MainActor
    @Test("a redirect loop and too many redirects fail through a main-actor hop, from the main actor")
    func redirectLoop() async throws {
        let (client, _) = try await Self.client(interceptors: [MainActorHop()])
        await #expect {
            _ = try await client.send(
                RestingRequest(endpoint: Endpoint<Nothing, IsolationAnyBody>(.get, "/loop", encoding: .query)))
        } throws: { ($0 as? RestingError)?.errorType == "redirectLoop" }
        await #expect {
            _ = try await client.perform(RestingRequest(endpoint: Self.chain, pathVariables: ["hops": 40])).value
        } throws: { ($0 as? RestingError)?.errorType == "tooManyRedirects" }
    }

    // MARK: - Cancellation

    enum Canceller: String, CaseIterable, Sendable {
        case promise, awaitingTask, cancelAll, shutdown, detachedPromise, otherActorCancelAll
    }

    @MainActor
    @Test("a call waiting for the server behind a main-actor hop is cancelled", arguments: Canceller.allCases)
    func cancelWhileWaiting(_ canceller: Canceller) async throws {
        actor Other { func cancelAll(_ client: RestingClient) { client.cancelAll() } }
        // No idle timeout: under ThreadSanitizer with the whole suite, a canceller that needs a thread of the global
        // pool (a detached task, another actor, the shutdown) was seen to run more than 60 s late, after the
        // transport's default idle timeout had ended the call as timed out.
        var configuration = CurlConfiguration()
        configuration.idleTimeout = nil
        let (client, server) = try await Self.client(
            interceptors: [MainActorHop()], networkInterceptors: [MainActorHop()], transport: configuration)
        func request(_ tag: String) -> RestingRequest<Nothing, IsolationAnyBody> {
            RestingRequest(
                // The server's longest delay: with the whole suite in one process, reaching the cancellation (two
                // polls of the server, a main-actor hop) or a canceller's own thread (a detached task, another
                // actor, a grace period's timer) was seen to take longer than a 30-second delay, which then ended
                // both calls with their answer before they were cancelled.
                endpoint: Endpoint<Nothing, IsolationAnyBody>(.get, "/delay/180000", encoding: .query),
                queryItems: [URLQueryItem(name: "tag", value: tag)])
        }
        let tags = [
            "iso-p-\(canceller.rawValue)-\(UUID().uuidString)", "iso-s-\(canceller.rawValue)-\(UUID().uuidString)",
        ]
        let promise = client.perform(request(tags[0]))
        let sending = request(tags[1])
        let task = Task { @MainActor in try await client.send(sending) }
        try await server.waitUntilDelaying(tag: tags[0])
        try await server.waitUntilDelaying(tag: tags[1])
        switch canceller {
        case .promise:
            promise.cancel()
            task.cancel()
        case .awaitingTask:
            task.cancel()
            promise.cancel()
        case .cancelAll: client.cancelAll()
        case .shutdown: await client.shutdown(gracePeriod: .zero)
        case .detachedPromise:
            await Task.detached {
                promise.cancel()
                task.cancel()
            }.value
        case .otherActorCancelAll: await Other().cancelAll(client)
        }
        await #expect { _ = try await promise.value } throws: { isRestingError($0, "cancelled") }
        await #expect { _ = try await task.value } throws: { isRestingError($0, "cancelled") }
    }

    @MainActor
    @Test("a task cancelled by its own interceptor on the main actor fails cancelled, send and perform")
    func cancelledFromInsideTheChain() async throws {
        let (client, _) = try await Self.client(interceptors: [CancelsItsTask()])
        let request = RestingRequest(endpoint: Self.json, pathVariables: ["size": 10])
        await #expect { _ = try await client.perform(request).value } throws: { isRestingError($0, "cancelled") }
        let task = Task { @MainActor in try await client.send(request) }
        await #expect { _ = try await task.value } throws: { isRestingError($0, "cancelled") }
    }

    // MARK: - Downloads

    @MainActor
    @Test("a download through a main-actor hop lands in its file, its ending off the main thread")
    func download() async throws {
        let (client, _) = try await Self.client(interceptors: [MainActorHop()])
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("iso-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let file = try await client.download(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/bytes/200000", encoding: .query)),
            to: destination
        ).value
        #expect(file.size == 200_000)
        #expect(try Data(contentsOf: destination).count == 200_000)
    }

    // MARK: - Task-locals and priority

    @Test("task-locals and priority reach the interceptors, before and after a main-actor hop")
    func taskLocalsAndPriority() async throws {
        let seen = Locked<[(String?, TaskPriority)]>([])
        let (client, _) = try await Self.client(
            interceptors: [TaskLocalReader(seen: seen), MainActorHop()],
            networkInterceptors: [TaskLocalReader(seen: seen)])
        let request = RestingRequest(endpoint: Self.json, pathVariables: ["size": 1])
        try await Task(priority: .high) {
            try await Self.$marker.withValue("sent") { _ = try await client.send(request) }
            try await Self.$marker.withValue("performed") { _ = try await client.perform(request).value }
        }.value
        let values = seen.withLock { $0 }
        #expect(values.map(\.0) == ["sent", "sent", "performed", "performed"])
        #expect(values.allSatisfy { $0.1 >= .high }, "\(values.map(\.1))")
    }
}
