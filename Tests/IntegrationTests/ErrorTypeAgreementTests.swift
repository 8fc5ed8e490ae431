#if Logging && Metrics && Tracing
import Foundation
import InMemoryTracing
import MetricsTestKit
import RestingCore
import RestingLogging
import RestingMetrics
import RestingStreaming
import RestingTesting
import RestingTracing
import Testing
import Tracing

/// The swift-log, swift-metrics and tracing integrations, all three watching the same exchanges: each names an
/// exchange's `error.type` by one rule (OpenTelemetry's: a failure's type, or a status of 400 or more).
@Suite("logs, metrics and traces name an exchange's error.type alike")
struct ErrorTypeAgreementTests {
    /// What each integration said of one exchange: the last log entry's, the request timer's and the span's
    /// `error.type` (`nil`: none).
    struct Said: Equatable, CustomStringConvertible {
        let log: String?
        let metric: String?
        let span: String?

        static func all(_ errorType: String?) -> Said { Said(log: errorType, metric: errorType, span: errorType) }
        var description: String { "log \(log ?? "–"), metric \(metric ?? "–"), span \(span ?? "–")" }
    }

    /// Tells the test that a request reached the transport's side of the chain.
    struct Arrivals: RestingInterceptor {
        let continuation: AsyncStream<Void>.Continuation

        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            continuation.yield()
            return try await execution(request)
        }
    }

    /// Registers `answer` for `GET /x`, lets `call` make one exchange through a client with the three integrations,
    /// and returns what each said of it.
    func exchange(_ answer: StubResponse, _ call: (RestingClient, AsyncStream<Void>) async throws -> Void)
        async throws -> Said
    {
        let (stub, log, metrics, tracer) = (StubHTTPClient(), CapturedLog(), TestMetrics(), InMemoryTracer())
        stub.register(.get, "/x", answer)
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            networkInterceptors: [
                SwiftLogInterceptor(logger: log.logger(level: .debug)), MetricsInterceptor(factory: metrics),
                TracingInterceptor(.exchange, tracer: tracer), Arrivals(continuation: arrived),
            ])
        try await call(client, arrivals)
        let entry = try #require(log.entries.withLock { $0.last })
        let timer = try #require(metrics.timers.first { $0.label == "http.client.request.duration" })
        let span = try #require(tracer.finishedSpans.first)
        var spanErrorType: String?
        if case .string(let value)? = span.attributes["error.type"]?.toSpanAttribute() { spanErrorType = value }
        return Said(
            log: entry.metadata["error.type"].map { "\($0)" },
            metric: timer.dimensions.first { $0.0 == "error.type" }?.1, span: spanErrorType)
    }

    func perform<Body: Sendable>(_ client: RestingClient, _: Body.Type) async throws -> RestingResponse<Body>
    where Body: Decodable {
        try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Body>(.get, "/x", encoding: .query)))
            .value
    }

    @Test("a success, and a streamed body its reader leaves early, are no error")
    func noError() async throws {
        #expect(try await exchange(.status(200)) { client, _ in _ = try await perform(client, Data.self) } == .all(nil))
        let left = try await exchange(.stream([.text("one\n"), .text("two\n")])) { client, _ in
            for try await _ in try await perform(client, ResponseLines.self).body { break }
        }
        #expect(left == .all(nil))
    }

    @Test("a status of 400 or more is a client's error, named by the status")
    func errorStatuses() async throws {
        for status in [404, 503] {
            let said = try await exchange(.status(status)) { client, _ in
                _ = try? await perform(client, Data.self)
            }
            #expect(said == .all(String(status)))
        }
    }

    @Test("a transport failure, a body cut short and a cancelled call are named by their type")
    func failures() async throws {
        let timedOut = TransportError(kind: .timedOut, code: 28, domain: "test", message: "slow")
        let failed = try await exchange(.failure(.transportFailed(timedOut))) { client, _ in
            _ = try? await perform(client, Data.self)
        }
        #expect(failed == .all("timedOut"))

        let reset = TransportError(kind: .connectionReset, code: 56, domain: "test", message: "reset")
        let cut = try await exchange(.stream([.text("one\n"), .failure(.transportFailed(reset))])) { client, _ in
            await #expect(throws: RestingError.self) {
                for try await _ in try await perform(client, ResponseLines.self).body {}
            }
        }
        #expect(cut == .all("connectionReset"))

        let cancelled = try await exchange(.status(200).delayed(by: .seconds(300))) { client, arrivals in
            let call = Task { try await perform(client, Data.self) }
            for await _ in arrivals { break }
            call.cancel()
            await #expect(throws: RestingError.cancelled) { try await call.value }
        }
        #expect(cancelled == .all("cancelled"))
    }
}
#endif
