#if Tracing
import Foundation
import InMemoryTracing
import RestingCore
import RestingStreaming
import RestingTesting
import RestingTracing
import Testing
import Tracing

@Suite("swift-distributed-tracing: a span per call and per exchange, the context sent on")
struct TracingInterceptorTests {
    let tracer = InMemoryTracer()
    let stub = StubHTTPClient()

    func client() -> RestingClient {
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        return RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [TracingInterceptor(.call, tracer: tracer), RetryInterceptor(policy: policy)],
            networkInterceptors: [TracingInterceptor(.exchange, tracer: tracer)])
    }

    func get(_ path: String) -> RestingRequest<Nothing, Data> {
        RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path, encoding: .query))
    }

    func attribute(_ span: FinishedInMemorySpan, _ name: String) -> SpanAttribute? {
        span.attributes[name]?.toSpanAttribute()
    }

    @Test(
        "perform: the call's span is a child of the caller's, each attempt a client span under it, with OpenTelemetry's attributes"
    )
    func callAndAttempts() async throws {
        stub.register(.get, "/flaky", .status(503), .status(200))
        let client = client()
        try await tracer.withSpan("caller") { _ in _ = try await client.perform(get("/flaky?token=s3cret")).value }

        let spans = tracer.finishedSpans
        let caller = try #require(spans.first { $0.operationName == "caller" })
        let call = try #require(spans.first { $0.kind == .internal && $0.operationName == "GET" })
        let exchanges = spans.filter { $0.kind == .client }
        #expect(call.parentSpanID == caller.spanID && call.traceID == caller.traceID)
        #expect(exchanges.count == 2 && exchanges.allSatisfy { $0.parentSpanID == call.spanID })
        #expect(exchanges.map { attribute($0, "http.response.status_code") } == [.int64(503), .int64(200)])
        #expect(exchanges.map { attribute($0, "http.request.resend_count") } == [nil, .int64(1)])
        #expect(exchanges.map { $0.status?.code } == [.error, nil])
        #expect(attribute(exchanges[0], "error.type") == .string("503"))
        #expect(attribute(call, "http.request.method") == .string("GET"))
        #expect(attribute(call, "server.address") == .string("api.example.com"))
        #expect(attribute(call, "server.port") == .int64(443))
        guard case .string(let url)? = attribute(call, "url.full") else { throw Unexpected.noURL }
        #expect(url.hasPrefix("https://api.example.com/flaky") && !url.contains("s3cret"))
    }

    @Test("each request on the wire carries its own exchange span's context, injected through the tracer")
    func injection() async throws {
        stub.register(.get, "/flaky", .status(503), .status(200))
        _ = try await client().perform(get("/flaky")).value
        let exchanges = tracer.finishedSpans.filter { $0.kind == .client }
        let sent = stub.received.map(\.request.headers)
        #expect(sent.map { $0[InMemoryTracer.spanIDKey] } == exchanges.map(\.spanID))
        #expect(sent.map { $0[InMemoryTracer.traceIDKey] } == exchanges.map(\.traceID))
    }

    @Test("send: awaited in the calling task, the call's span still has the caller's as its parent")
    func sendKeepsTheParent() async throws {
        stub.register(.get, "/posts", .status(200))
        let client = client()
        try await tracer.withSpan("caller") { _ in _ = try await client.send(get("/posts")) }
        let spans = tracer.finishedSpans
        let caller = try #require(spans.first { $0.operationName == "caller" })
        let call = try #require(spans.first { $0.kind == .internal && $0.operationName == "GET" })
        #expect(call.parentSpanID == caller.spanID)
    }

    @Test("a failure sets the error status, records the error and names its error.type")
    func failure() async throws {
        let refused = TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused")
        stub.register(.get, "/down", .failure(.transportFailed(refused)))
        await #expect(throws: RestingError.self) { try await client().perform(get("/down")).value }
        let exchange = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(exchange.status?.code == .error)
        #expect(attribute(exchange, "error.type") == .string("connectionFailed"))
        #expect(exchange.errors.count == 1)
    }

    @Test("a streamed call's spans end when its body ends, not at its head")
    func streamedSpanEndsWithItsBody() async throws {
        stub.register(.get, "/lines", .stream([.text("one\n"), .text("two\n")]))
        let body = try await client()
            .perform(RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query)))
            .value.body
        #expect(tracer.finishedSpans.isEmpty && tracer.activeSpans.count == 2)
        var lines: [String] = []
        for try await line in body { lines.append(line) }
        #expect(lines == ["one", "two"])
        #expect(tracer.activeSpans.isEmpty && tracer.finishedSpans.count == 2)
        #expect(tracer.finishedSpans.allSatisfy { $0.status == nil })
    }

    enum Unexpected: Error { case noURL }
}
#endif
