import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingLogging

@Suite("Retry interceptor")
struct RetryInterceptorTests {
    let stub = StubHTTPClient()
    let clock = VirtualClock()
    let getPost = Endpoint<Nothing, Data>(.get, "/posts/1", encoding: .query)
    let createPost = Endpoint<Data, Data>(.post, "/posts", encoding: .raw(contentType: "text/plain"))

    private func client(_ retry: RetryInterceptor, events: EventListenerFactory? = nil) -> RestingClient {
        RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, interceptors: [retry], eventListener: events)
    }

    private func retry(
        _ configure: (inout RetryInterceptor.Policy) -> Void = { _ in }, budget: RetryBudget = RetryBudget(),
        fraction: Double? = nil
    ) -> RetryInterceptor {
        var policy = RetryInterceptor.Policy()
        configure(&policy)
        guard let fraction else { return RetryInterceptor(policy: policy, budget: budget, clock: clock) }
        return RetryInterceptor(policy: policy, budget: budget, clock: clock) { fraction }
    }

    @Test("an idempotent request is retried on 503 and succeeds, after a jittered delay within the first step")
    func retriesA503() async throws {
        stub.register(.get, "/posts/1", .status(503), .status(200, body: Data("ok".utf8)))
        let response = try await client(retry()).perform(RestingRequest(endpoint: getPost)).value
        #expect(response.body == Data("ok".utf8) && stub.received.count == 2)
        #expect(clock.sleeps.count == 1 && clock.sleeps[0] >= .zero && clock.sleeps[0] <= .milliseconds(200))
    }

    @Test("each send carries its attempt's number, for the interceptors after the retry and the transport")
    func attemptNumbers() async throws {
        stub.register(.get, "/posts/1", .status(503), .status(503), .status(200))
        _ = try await client(retry()).perform(RestingRequest(endpoint: getPost)).value
        #expect(stub.received.map(\.request.attributes.attempt) == [1, 2, 3])
    }

    @Test("each retryable status is retried", arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatuses(status: Int) async throws {
        stub.register(.get, "/posts/1", .status(status), .status(200))
        _ = try await client(retry()).perform(RestingRequest(endpoint: getPost)).value
        #expect(stub.received.count == 2)
    }

    @Test("a POST is not retried by default, but is when the policy allows it, with its body read again")
    func nonIdempotentMethods() async throws {
        stub.register(.post, "/posts", .status(503), .status(201))
        let request = RestingRequest(endpoint: createPost, body: Data("payload".utf8))
        await #expect(throws: RestingError.self) { try await client(retry()).perform(request).value }
        #expect(stub.received.count == 1)

        let second = StubHTTPClient()
        second.register(.post, "/posts", .status(503), .status(201))
        let allowed = RestingClient(
            baseUrl: "https://api.example.com", httpClient: second,
            interceptors: [retry { $0.retriesNonIdempotentMethods = true }])
        #expect(try await allowed.perform(request).value.status == 201)
        #expect(second.received.map(\.body) == [Data("payload".utf8), Data("payload".utf8)])
    }

    @Test("backoff doubles per attempt up to the cap, and full jitter stays within it")
    func backoffBounds() async throws {
        stub.register(.get, "/posts/1", .status(503))
        let atMaximum = retry(
            {
                $0.maximumAttempts = 6
                $0.maximumDelay = .milliseconds(1000)
            }, fraction: 1)
        _ = try? await client(atMaximum).perform(RestingRequest(endpoint: getPost)).value
        #expect(clock.sleeps == [200, 400, 800, 1000, 1000].map { Duration.milliseconds($0) })

        let jittered = VirtualClock()
        let random = RetryInterceptor(
            policy: {
                var p = RetryInterceptor.Policy()
                p.maximumAttempts = 6
                p.maximumDelay = .milliseconds(1000)
                return p
            }(),
            budget: RetryBudget(ratio: 10, reserve: 1000), clock: jittered)
        for _ in 0..<20 { _ = try? await client(random).perform(RestingRequest(endpoint: getPost)).value }
        #expect(jittered.sleeps.count == 100)
        for (index, sleep) in jittered.sleeps.enumerated() {
            let step = index % 5
            #expect(sleep >= .zero && sleep <= min(.milliseconds(1000), .milliseconds(200) * (1 << step)))
        }
        #expect(Set(jittered.sleeps).count > 50, "delays are random, not fixed")
    }

    @Test("Retry-After in seconds and as an HTTP date is honoured within the cap, and not waited for beyond it")
    func retryAfter() async throws {
        let inTwoSeconds = StubResponse.status(503, headers: ["Retry-After": "2"])
        let date = HTTPDate.parse("Tue, 14 Nov 2023 22:13:23 GMT")  // the virtual clock starts at 22:13:20
        #expect(date != nil)
        let inThreeSeconds = StubResponse.status(429, headers: ["Retry-After": "Tue, 14 Nov 2023 22:13:23 GMT"])
        stub.register(.get, "/posts/1", inTwoSeconds, inThreeSeconds, .status(200))
        _ = try await client(retry()).perform(RestingRequest(endpoint: getPost)).value
        #expect(
            clock.sleeps == [.seconds(2), .milliseconds(1000)],
            "the date is 3 s after the start, 1 s after the first wait")

        let tooLong = StubHTTPClient()
        tooLong.register(.get, "/posts/1", .status(503, headers: ["Retry-After": "120"]))
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: tooLong, interceptors: [retry()])
        await #expect(throws: RestingError.self) { try await client.perform(RestingRequest(endpoint: getPost)).value }
        #expect(tooLong.received.count == 1)
    }

    @Test("a Retry-After of an hour or more, up to one too large for any clock, means: do not retry — never: at once")
    func hugeRetryAfterIsNotRetried() async throws {
        for value in ["3600", "99999999999999999999999", "9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT"] {
            let stub = StubHTTPClient()
            stub.register(.get, "/posts/1", .status(503, headers: ["Retry-After": value]), .status(200))
            let client = RestingClient(
                baseUrl: "https://api.example.com", httpClient: stub,
                interceptors: [retry { $0.maximumDelay = .seconds(Int64.max / 2) }])
            let error = await restingError { try await client.perform(RestingRequest(endpoint: getPost)).value }
            guard case .httpError(let http) = error else {
                Issue.record("\(value): expected the 503")
                continue
            }
            #expect(http.status == 503 && stub.received.count == 1, "\(value)")
        }
    }

    @Test("backoff with policies of any size never overflows")
    func hugePoliciesDoNotOverflow() {
        let huge = retry(
            {
                $0.baseDelay = .seconds(Int64.max / 2)
                $0.maximumDelay = .seconds(Int64.max)
            }, fraction: 1)
        #expect(huge.backoff(attempt: 40) == .effectivelyForever)
        #expect(
            Duration.seconds(Int64.max).wholeMilliseconds == .max
                && Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect(
            Duration.milliseconds(1500).wholeMilliseconds == 1500
                && Duration.milliseconds(1500).wholeSecondsRoundedUp == 2)
    }

    @Test(
        "Retry-After parsing",
        arguments: [
            ("120", Duration.seconds(120)), ("0", .zero), (" 7 ", .seconds(7)), ("-1", nil), ("soon", nil),
            ("Tue, 14 Nov 2023 22:13:30 GMT", .seconds(10)), ("Tuesday, 14-Nov-23 22:13:30 GMT", .seconds(10)),
            ("Tue Nov 14 22:13:30 2023", .seconds(10)), ("Tue, 14 Nov 2023 22:00:00 GMT", .zero),
            ("Tue Nov  14 22:43:20 2023", .seconds(1800)),
            // An hour at the most, whatever a server asks (ServerDuration's ceiling for Retry-After).
            ("Wed Nov  15 22:13:20 2023", .seconds(3600)), ("Thu, 29 Feb 2024 22:13:20 GMT", .seconds(3600)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", .zero),  // a two-digit year is never more than 50 years ahead
            ("99999999999999999999999", .seconds(3600)), ("9223372036854775807", .seconds(3600)),
            ("Fri, 31 Feb 2023 22:13:30 GMT", nil), ("Wed, 29 Feb 2023 22:13:30 GMT", nil),
            ("Tue, 14 Nov 2023 24:00:00 GMT", nil),
            ("Tue, 14 Nov 2023 22:13:30 PST", nil), ("Tue, 14 Foo 2023 22:13:30 GMT", nil),
            ("Tue, 14 Nov 2023 22:13 GMT", nil),
        ] as [(String, Duration?)])
    func retryAfterParsing(value: String, expected: Duration?) {
        #expect(RetryAfter.delay(value, now: Date(timeIntervalSince1970: 1_700_000_000)) == expected)
    }

    @Test("safe transport failures are retried; TLS failures are not")
    func transportFailures() async throws {
        let reset = RestingError.transportFailed(
            TransportError(kind: .connectionReset, code: 56, domain: "test", message: "reset"))
        let tls = RestingError.transportFailed(
            TransportError(kind: .tlsFailed, code: 60, domain: "test", message: "bad certificate"))
        stub.register(.get, "/posts/1", .failure(reset), .status(200))
        #expect(try await client(retry()).perform(RestingRequest(endpoint: getPost)).value.status == 200)
        let other = StubHTTPClient()
        other.register(.get, "/posts/1", .failure(tls), .status(200))
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: other, interceptors: [retry()])
        await #expect(throws: RestingError.self) { try await client.perform(RestingRequest(endpoint: getPost)).value }
        #expect(other.received.count == 1)
    }

    @Test("a shared budget stops retries once spent, so an outage is not amplified")
    func budgetExhaustion() async throws {
        stub.register(.get, "/posts/1", .status(503))
        let budget = RetryBudget(ratio: 0, reserve: 2)
        let client = client(retry(budget: budget))
        for _ in 0..<3 { _ = try? await client.perform(RestingRequest(endpoint: getPost)).value }
        #expect(stub.received.count == 3 + 2, "three calls, two retries in all")
    }

    @Test("every retry is reported as a call event")
    func events() async throws {
        let events = Collector<Int>()
        stub.register(.get, "/posts/1", .status(503), .status(503), .status(200))
        let listener = EventListenerFactory.shared { event in
            if case .retryScheduled(let attempt, _, _) = event.kind { events.append(attempt) }
        }
        _ = try await client(retry(), events: listener).perform(RestingRequest(endpoint: getPost)).value
        #expect(events.all == [2, 3])
    }

    @Test("cancelling during the backoff ends the call with .cancelled")
    func cancelDuringBackoff() async throws {
        stub.register(.get, "/posts/1", .status(503))
        let scheduled = Collector<Bool>()
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .seconds(60)
        policy.maximumDelay = .seconds(60)
        let retry = RetryInterceptor(policy: policy, budget: RetryBudget(), clock: SystemClock(), randomFraction: { 1 })
        let listener = EventListenerFactory.shared { event in
            if case .retryScheduled = event.kind { scheduled.append(true) }
        }
        let promise = client(retry, events: listener).perform(RestingRequest(endpoint: getPost))
        await scheduled.wait { !$0.isEmpty }
        promise.cancel()
        guard case .cancelled = await Result(catching: { try await promise.value }).failure else {
            Issue.record("expected .cancelled")
            return
        }
    }
}
