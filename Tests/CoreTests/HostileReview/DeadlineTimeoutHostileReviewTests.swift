import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

/// A hostile review of a `DeadlineInterceptor` that set the exchange's timeout on the request it passed on (and an end
/// of the chain that set it again only when it differed): the timeout the deadline's link worked out became what every
/// stage after it — a second deadline among them — took for the request's own. The first suite holds what the review
/// proved (each test failed against that code; the link sets no timeout since, and they pass); the second, the attacks
/// the code withstood.
enum DeadlineTimeoutReview {
    static let api = "https://api.example.com"
    static let items = Endpoint<Nothing, Data>(.get, "/items")

    static func timedOut(_ message: String = "") -> RestingError {
        .transportFailed(TransportError(kind: .timedOut, code: 28, domain: "test", message: message))
    }

    /// A transport on `clock`: an exchange whose answer takes `answerTime` (per URL path; 0 by default) is answered
    /// after that time, unless its timeout is shorter — then the clock moves by the timeout and it times out. Each
    /// exchange's timeout is recorded.
    final class ClockedTransport: HTTPClient {
        let clock: VirtualClock
        let answerTime: @Sendable (HTTPRequest) -> Duration
        let respond: @Sendable (HTTPRequest) -> HTTPDataResponse
        let timeouts = Collector<Duration?>()

        init(
            clock: VirtualClock, answerTime: @escaping @Sendable (HTTPRequest) -> Duration = { _ in .zero },
            respond: @escaping @Sendable (HTTPRequest) -> HTTPDataResponse = {
                HTTPDataResponse(status: 200, url: $0.url)
            }
        ) {
            self.clock = clock
            self.answerTime = answerTime
            self.respond = respond
        }

        func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
            timeouts.append(request.timeout)
            let takes = answerTime(request)
            if let timeout = request.timeout, timeout < takes {
                clock.advance(by: timeout)
                throw DeadlineTimeoutReview.timedOut("no answer within \(timeout)")
            }
            clock.advance(by: takes)
            return respond(request)
        }
    }

    /// Records what comes out of the rest of the chain: a logging or metrics interceptor's view.
    struct ErrorRecorder: RestingInterceptor {
        let seen: Collector<RestingError?>
        nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
            -> HTTPDataResponse
        {
            do {
                return try await execution(request)
            } catch {
                seen.append(error as? RestingError)
                throw error
            }
        }
    }

    static func client(_ transport: any HTTPClient, _ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(baseUrl: api, httpClient: transport, interceptors: interceptors)
    }
}

@Suite("Deadline timeout: hostile review — found and fixed")
struct DeadlineTimeoutHostileReviewDefectTests {
    typealias Review = DeadlineTimeoutReview

    @Test(
        "a second DeadlineInterceptor's own attempt timeout replaces the first's: a 3 s answer within its 5 s is not cut at the outer 1 s",
        .timeLimit(.minutes(5)))
    func innerAttemptTimeoutReplacesTheOuterOne() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock, answerTime: { _ in .seconds(3) })
        // A client-wide default attempt timeout, and a link that gives its calls longer: the inner's
        // `attemptTimeout` is taken "in place of" the outer's (`request.attributes.attemptTimeout ?? attemptTimeout
        // ?? outer?.attemptTimeout`), as it was before the change.
        let client = Review.client(
            transport,
            [
                DeadlineInterceptor(attemptTimeout: .seconds(1), clock: clock),
                DeadlineInterceptor(callTimeout: .seconds(60), attemptTimeout: .seconds(5), clock: clock),
            ])
        let outcome = await Result { try await client.perform(RestingRequest(endpoint: Review.items)).value }
        #expect(transport.timeouts.all == [.seconds(5)], "the inner deadline's attempt timeout reaches the transport")
        #expect((try? outcome.get()) != nil, "the answer, 3 s in, came within the 5 s the inner link allows")
    }

    @Test(
        "a deadline inside another reports the attempt timeout that cut an exchange as deadlineExceeded(attempt), not a bare transport timeout",
        .timeLimit(.minutes(5)))
    func innerDeadlineReportsTheAttemptLimit() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock, answerTime: { _ in .seconds(3600) })
        let seen = Collector<RestingError?>()
        // The inner link inherits the outer's 1 s attempt timeout and adds a call deadline of its own; what it
        // throws is what a logging interceptor between the two (or a retry composed between them) sees.
        let client = Review.client(
            transport,
            [
                DeadlineInterceptor(attemptTimeout: .seconds(1), clock: clock),
                Review.ErrorRecorder(seen: seen),
                DeadlineInterceptor(callTimeout: .seconds(60), clock: clock),
            ])
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .attempt, stage: .exchange))) {
            try await client.perform(RestingRequest(endpoint: Review.items)).value
        }
        #expect(transport.timeouts.all == [.seconds(1)])
        #expect(
            seen.all == [RestingError.deadlineExceeded(.init(limit: .attempt, stage: .exchange))],
            "the inner deadline knew it was its attempt timeout: the request has no timeout of its own")
    }

    @Test(
        "an exchange cut by the timeout a call's deadline gave it ends as deadlineExceeded(call), even after the wall clock stepped back",
        .timeLimit(.minutes(5)))
    func clockSteppedBackStillReportsTheDeadline() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock, answerTime: { _ in .seconds(3600) })
        // The wall clock is stepped back 10 s (NTP) after the deadline's link, before the exchange.
        let stepBack = RequestRewriter { request in
            clock.advance(by: .seconds(-10))
            return request
        }
        let client = Review.client(
            transport, [DeadlineInterceptor(callTimeout: .seconds(1), clock: clock), stepBack])
        let outcome = await Result { try await client.perform(RestingRequest(endpoint: Review.items)).value }
        // The request sets no timeout of its own: a bare transport timeout says one ran out, and a retry outside
        // would treat it as an ordinary, retryable, transport timeout.
        #expect(transport.timeouts.all.count == 1)
        #expect(
            outcome.failure.map {
                if case .deadlineExceeded = $0 { true } else { false }
            } == true,
            "got \(String(describing: outcome.failure)) with the transport handed \(transport.timeouts.all)")
    }
}

@Suite("Deadline timeout: hostile review — attacks withstood")
struct DeadlineTimeoutHostileReviewWithstoodTests {
    typealias Review = DeadlineTimeoutReview

    @Test("after each retry's wait, the transport gets the time left, never the timeout the deadline's link set")
    func retryWaitsShortenTheTimeout() async throws {
        let clock = VirtualClock()
        let attempt = Locked(0)
        let transport = Review.ClockedTransport(
            clock: clock,
            respond: { request in
                let count = attempt.withLock { count in
                    count += 1
                    return count
                }
                return count < 3
                    ? HTTPDataResponse(status: 503, headers: ["Retry-After": "\(count + 1)"], url: request.url)
                    : HTTPDataResponse(status: 200, url: request.url)
            })
        _ = try await Review.client(
            transport, [DeadlineInterceptor(callTimeout: .seconds(10), clock: clock), RetryInterceptor(clock: clock)]
        ).perform(RestingRequest(endpoint: Review.items)).value
        #expect(clock.sleeps == [.seconds(2), .seconds(3)])
        #expect(transport.timeouts.all == [.seconds(10), .seconds(8), .seconds(5)])
    }

    @Test(
        "a stage after the deadline that lengthens or clears the timeout cannot give the transport more than the time left; a shorter one is kept"
    )
    func laterStagesCannotLengthenTheTimeout() async throws {
        let cases: [(Duration?, Duration?)] = [
            (.seconds(3600), .seconds(2)), (nil, .seconds(2)), (.milliseconds(300), .milliseconds(300)),
        ]
        for (set, expected) in cases {
            let clock = VirtualClock()
            let transport = Review.ClockedTransport(clock: clock)
            let rewriter = RequestRewriter { request in
                var request = request
                request.timeout = set
                return request
            }
            _ = try await Review.client(
                transport, [DeadlineInterceptor(callTimeout: .seconds(2), clock: clock), rewriter]
            ).perform(RestingRequest(endpoint: Review.items)).value
            #expect(transport.timeouts.all == [expected], "a stage set \(String(describing: set))")
        }
    }

    @Test(
        "a deadline that passes between its link and the transport fails the call with deadlineExceeded(call, exchange), unsent"
    )
    func deadlinePassedBeforeTheExchange() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock)
        let slowStage = RequestRewriter { request in
            clock.advance(by: .milliseconds(2001))
            return request
        }
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .exchange))) {
            try await Review.client(
                transport, [DeadlineInterceptor(callTimeout: .seconds(2), clock: clock), slowStage]
            ).perform(RestingRequest(endpoint: Review.items)).value
        }
        #expect(transport.timeouts.all.isEmpty)
    }

    @Test("each redirect hop is sent with the time left when it starts")
    func redirectHopsGetTheTimeLeft() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(
            clock: clock, answerTime: { $0.url.path == "/items" ? .seconds(3) : .zero },
            respond: { request in
                request.url.path == "/items"
                    ? HTTPDataResponse(status: 302, headers: ["Location": "/moved"], url: request.url)
                    : HTTPDataResponse(status: 200, url: request.url)
            })
        _ = try await Review.client(transport, [DeadlineInterceptor(callTimeout: .seconds(10), clock: clock)])
            .perform(RestingRequest(endpoint: Review.items)).value
        #expect(transport.timeouts.all == [.seconds(10), .seconds(7)])
    }

    @Test("a rate limit's wait comes off the timeout the transport gets")
    func rateLimitWaitShortensTheTimeout() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock)
        let client = Review.client(
            transport,
            [
                DeadlineInterceptor(callTimeout: .seconds(10), clock: clock),
                RateLimitInterceptor(limit: .init(requests: 1, per: .seconds(4), burst: 1), clock: clock),
            ])
        _ = try await client.perform(RestingRequest(endpoint: Review.items)).value
        _ = try await client.perform(RestingRequest(endpoint: Review.items)).value
        #expect(clock.sleeps == [.seconds(4)])
        #expect(transport.timeouts.all == [.seconds(10), .seconds(6)])
    }

    @Test("the task's CallDeadline and the request's attempt timeout both bound the exchange's timeout")
    func taskDeadlineAndAttemptAttribute() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock)
        let client = Review.client(transport, [DeadlineInterceptor(callTimeout: .seconds(60), clock: clock)])
        try await CallDeadline.$current.withValue(clock.now + 0.4) {
            _ = try await client.perform(RestingRequest(endpoint: Review.items)).value
            var request = RestingRequest(endpoint: Review.items)
            request.attributes.attemptTimeout = .milliseconds(150)
            _ = try await client.perform(request).value
        }
        #expect(transport.timeouts.all == [.milliseconds(400), .milliseconds(150)])
    }

    @Test("an interceptor before the deadline keeps its request's own timeout: the deadline's copy is its own")
    func outerRequestUnchanged() async throws {
        let clock = VirtualClock()
        let transport = Review.ClockedTransport(clock: clock)
        let after = Collector<Duration?>()
        struct Keeper: RestingInterceptor {
            let after: Collector<Duration?>
            nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
                -> HTTPDataResponse
            {
                let response = try await execution(request)
                after.append(request.timeout)
                return response
            }
        }
        _ = try await Review.client(
            transport, [Keeper(after: after), DeadlineInterceptor(callTimeout: .seconds(2), clock: clock)]
        ).perform(RestingRequest(endpoint: Review.items)).value
        #expect(after.all == [nil])
        #expect(transport.timeouts.all == [.seconds(2)])
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
