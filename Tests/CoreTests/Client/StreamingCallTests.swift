import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingLogging
@testable import RestingStreaming

/// Streaming calls through the whole pipeline (converter, interceptors, status check) on the stub transport.
@Suite("Streaming calls", .timeLimit(.minutes(5)))
struct StreamingCallTests {
    struct Token: Codable, Equatable { let text: String }

    let events = Endpoint<Nothing, ServerSentEvents>(.get, "/events", encoding: .query)
    let sse: HTTPHeaderFields = ["Content-Type": "text/event-stream"]

    func client(_ stub: StubHTTPClient, _ interceptors: [any RestingInterceptor] = []) -> RestingClient {
        RestingClient(baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors)
    }

    func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
        var elements: [S.Element] = []
        for try await element in sequence { elements.append(element) }
        return elements
    }

    @Test("an endpoint declaring ServerSentEvents resolves with the head, then yields typed events as they come")
    func serverSentEvents() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/events",
            .stream(
                [
                    .text("data: {\"text\":\"he\"}\n\n"), .pause(.milliseconds(5)),
                    .text("data: {\"text\":\"llo\"}\n\ndata: [DONE]\n\n"),
                ], headers: sse))
        let response = try await client(stub).perform(RestingRequest(endpoint: events)).value
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/event-stream")
        var tokens: [Token] = []
        for try await event in response.body where event.data != "[DONE]" {
            tokens.append(try event.decode(Token.self))
        }
        #expect(tokens == [Token(text: "he"), Token(text: "llo")])
        #expect(stub.received.first?.request.responseStreaming != nil, "the transport is asked for a stream")
    }

    @Test("NDJSON, lines and raw chunks are endpoint response types too")
    func otherStreamingTypes() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/feed", .stream([.text("{\"text\":\"a\"}\n{\"te"), .text("xt\":\"b\"}\n")]))
        let json = Endpoint<Nothing, JSONLines<Token>>(.get, "/feed", encoding: .query)
        #expect(
            try await collect(client(stub).perform(RestingRequest(endpoint: json)).value.body) == [
                Token(text: "a"), Token(text: "b"),
            ])
        let lines = Endpoint<Nothing, ResponseLines>(.get, "/feed", encoding: .query)
        #expect(
            try await collect(client(stub).perform(RestingRequest(endpoint: lines)).value.body) == [
                #"{"text":"a"}"#, #"{"text":"b"}"#,
            ])
        let bytes = Endpoint<Nothing, ResponseBodyStream>(.get, "/feed", encoding: .query)
        let body = try await client(stub).perform(RestingRequest(endpoint: bytes)).value.body
        #expect(try await body.collect(upTo: 1024) == Data("{\"text\":\"a\"}\n{\"text\":\"b\"}\n".utf8))
    }

    @Test("a status the client does not accept fails the call with the start of the body, before any reading")
    func unacceptedStatus() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/events", .stream([.text("{\"error\":"), .text("\"gone\"}")], status: 410))
        do {
            _ = try await client(stub).perform(RestingRequest(endpoint: events)).value
            Issue.record("expected an HTTP error")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 410)
            #expect(error.body == Data("{\"error\":\"gone\"}".utf8))
        }
    }

    @Test("AuthInterceptor refreshes on a 401 and RetryInterceptor retries a 503 before the caller sees anything")
    func interceptorsJudgeTheHead() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/events", .stream([.text("unauthorized")], status: 401), .stream([.text("busy")], status: 503),
            .stream([.text("data: ok\n\n")], headers: sse))
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        let tokens = RotatingTokens()
        let client = client(stub, [RetryInterceptor(policy: policy), AuthInterceptor(provider: tokens)])
        let response = try await client.perform(RestingRequest(endpoint: events)).value
        #expect(response.status == 200)
        #expect(try await collect(response.body) == [ServerSentEventMessage(data: "ok")])
        #expect(tokens.refreshes.all.count == 1)
        #expect(
            stub.received.map { $0.request.headers["Authorization"] } == ["Bearer old", "Bearer new", "Bearer new"])
    }

    @Test("LoggingInterceptor logs the head at once and the byte count when the body has passed, never the body")
    func logging() async throws {
        struct Lines: RestingLogger {
            let lines = Collector<String>()
            func log(level: LogLevel, message: String) { lines.append(message) }
        }
        let logger = Lines()
        let stub = StubHTTPClient()
        stub.register(.get, "/events", .stream([.text("data: secret-ish\n\n"), .text("data: 2\n\n")], headers: sse))
        let response = try await client(stub, [LoggingInterceptor(level: .verbose, logger: logger)])
            .perform(RestingRequest(endpoint: events)).value
        #expect(logger.lines.all.contains { $0.contains("← 200") && $0.contains("<streamed body>") })
        #expect(!logger.lines.all.contains { $0.contains("body ended") }, "nothing is read before the caller reads")
        _ = try await collect(response.body)
        #expect(logger.lines.all.contains { $0.contains("body ended: 27 bytes") }, "\(logger.lines.all)")
        #expect(!logger.lines.all.contains { $0.contains("secret-ish") })
    }

    @Test("ValidationInterceptor judges a streamed head's Content-Type against Accept")
    func validation() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/events", .stream([.text("<html>")], headers: ["Content-Type": "text/html"]))
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [DefaultsInterceptor(headers: ["Accept": "text/event-stream"]), ValidationInterceptor()])
        await #expect(throws: RestingError.self) {
            _ = try await client.perform(RestingRequest(endpoint: events)).value
        }
    }

    @Test(
        "reconnecting: a dropped stream is sent again through the pipeline with Last-Event-ID, after the server's retry delay"
    )
    func reconnection() async throws {
        let stub = StubHTTPClient()
        let reset = RestingError.transportFailed(
            TransportError(kind: .connectionReset, code: 104, domain: "test", message: "reset"))
        stub.register(
            .get, "/events",
            .stream([.text("retry: 5\nid: 1\ndata: one\n\nid: 2\ndata: tw"), .failure(reset)], headers: sse),
            .stream([.text("id: 3\ndata: three\n\n")], headers: sse),
            .status(204))
        let tokens = RotatingTokens()
        let response = try await client(stub, [AuthInterceptor(provider: tokens)]).perform(
            RestingRequest(endpoint: events)
        ).value
        let received = try await collect(
            response.body.reconnecting(.init(maximumAttempts: 3, defaultDelay: .seconds(60))))
        #expect(received.map(\.data) == ["one", "three"], "the cut event is not dispatched; nothing repeats")
        #expect(received.map(\.lastEventID) == ["1", "3"])
        #expect(
            stub.received.map { $0.request.headers["Last-Event-ID"] } == [nil, "1", "3"],
            "the cut stream had only dispatched event 1; 204 ends the sequence")
        #expect(
            stub.received.allSatisfy { $0.request.headers["Authorization"] != nil },
            "every reconnection runs the interceptors")
    }

    @Test("reconnecting gives up after its attempts and throws the last failure; without a policy the drop is thrown")
    func reconnectionGivesUp() async throws {
        let stub = StubHTTPClient()
        let reset = RestingError.transportFailed(
            TransportError(kind: .connectionReset, code: 104, domain: "test", message: "reset"))
        stub.register(
            .get, "/events", .stream([.text("retry: 1\ndata: one\n\n"), .failure(reset)], headers: sse), .failure(reset)
        )
        let response = try await client(stub).perform(RestingRequest(endpoint: events)).value
        await #expect(throws: RestingError.self) {
            _ = try await collect(response.body.reconnecting(.init(maximumAttempts: 2)))
        }
        #expect(stub.received.count == 3, "the first call and two attempts")

        let cut = StubHTTPClient()
        cut.register(.get, "/events", .stream([.text("data: one\n\n"), .failure(reset)], headers: sse))
        let once = try await client(cut).perform(RestingRequest(endpoint: events)).value
        await #expect(throws: RestingError.self) { _ = try await collect(once.body) }
        #expect(cut.received.count == 1)
    }

    @Test("cancelling the promise, or every call of the client, stops a body that is being read")
    func cancellation() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/events", .stream([.text("data: 1\n\n"), .pause(.seconds(300)), .text("data: 2\n\n")], headers: sse))
        let client = client(stub)
        for cancel in ["promise", "all"] {
            let promise = client.perform(RestingRequest(endpoint: events))
            var iterator = try await promise.value.body.makeAsyncIterator()
            #expect(try await iterator.next()?.data == "1")
            let reader = Task { [iterator] in
                var iterator = iterator
                return try await iterator.next()
            }
            if cancel == "promise" { promise.cancel() } else { client.cancelAll() }
            await #expect(throws: RestingError.self, "\(cancel)") { _ = try await reader.value }
        }
    }

    @Test("cancelAll() reaches a body read after its promise and response are gone, and the call settles when it ends")
    func cancelAllReachesABodyWhosePromiseIsGone() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/events", .stream([.text("data: 1\n\n"), .pause(.seconds(300)), .text("data: 2\n\n")], headers: sse))
        stub.register(.get, "/short", .stream([.text("data: 1\n\n")], headers: sse))
        let client = client(stub)
        // The common form: the promise and the response are temporaries; only the iterator is left.
        var iterator = try await client.perform(RestingRequest(endpoint: events)).value.body.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "1")
        #expect(client.calls.count == 1, "the stream being read is one call of the client")
        let reader = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        client.cancelAll()
        let outcome = await Result { try await reader.value }
        guard case .cancelled = outcome.failure else {
            Issue.record("expected .cancelled, got \(outcome)")
            return
        }

        let short = Endpoint<Nothing, ServerSentEvents>(.get, "/short", encoding: .query)
        for try await _ in try await client.perform(RestingRequest(endpoint: short)).value.body {}
        #expect(client.calls.count == 0, "a stream read to its end settles its call")
    }

    @Test("a streaming call frees its concurrency slot once its head has arrived, while its body still flows")
    func concurrencySlot() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/events", .stream([.text("data: 1\n\n"), .pause(.seconds(300))], headers: sse))
        stub.register(.get, "/ping", .text("pong"))
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: stub, concurrency: .serial)
        let streaming = try await client.perform(RestingRequest(endpoint: events)).value
        let ping = Endpoint<Nothing, Data>(.get, "/ping", encoding: .query)
        #expect(try await client.perform(RestingRequest(endpoint: ping)).value.body == Data("pong".utf8))
        streaming.body.cancel()
    }

    @Test("a streamed body iterated twice fails the second time; a buffered call reads a stub's chunks whole")
    func singlePassAndBuffered() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/feed", .stream([.text("ab"), .pause(.milliseconds(1)), .text("cd")]))
        let bytes = Endpoint<Nothing, ResponseBodyStream>(.get, "/feed", encoding: .query)
        let body = try await client(stub).perform(RestingRequest(endpoint: bytes)).value.body
        _ = try await body.collect(upTo: 10)
        do {
            for try await _ in body {}
            Issue.record("expected a failure")
        } catch RestingError.bodyAlreadyConsumed {}

        let buffered = Endpoint<Nothing, Data>(.get, "/feed", encoding: .query)
        #expect(try await client(stub).perform(RestingRequest(endpoint: buffered)).value.body == Data("abcd".utf8))
    }

    @Test("the stub's idle timeout ends a stream that pauses longer, as a silent server would")
    func stubIdleTimeout() async throws {
        let stub = StubHTTPClient(idleTimeout: .milliseconds(50))
        stub.register(.get, "/events", .stream([.text("data: 1\n\n"), .pause(.seconds(300))], headers: sse))
        let response = try await client(stub).perform(RestingRequest(endpoint: events)).value
        do {
            _ = try await collect(response.body)
            Issue.record("expected a timeout")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .timedOut)
        }
    }
}
