import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("Deadlines")
struct DeadlineTests {
    let stub = StubHTTPClient()
    let items = Endpoint<Nothing, Data>(.get, "/items")

    private func client(_ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors)
    }

    @Test("every exchange is sent with the time the call has left, or its attempt's timeout when that is shorter")
    func timeoutHandedToTransport() async throws {
        stub.register(.get, "/items", .status(200), .status(200))
        let clock = VirtualClock()
        _ = try await client([DeadlineInterceptor(callTimeout: .seconds(3), attemptTimeout: .seconds(1), clock: clock)])
            .perform(RestingRequest(endpoint: items)).value
        var request = RestingRequest(endpoint: items)
        request.attributes.attemptTimeout = .seconds(5)
        _ = try await client([DeadlineInterceptor(callTimeout: .seconds(3), clock: clock)]).perform(request).value
        #expect(stub.received.map(\.request.timeout) == [.seconds(1), .seconds(3)])
    }

    @Test("the stages after a deadline see the request's own timeout; the transport, the time left at each exchange")
    func timeoutAfterAWait() async throws {
        stub.register(.get, "/items", .status(503, headers: ["Retry-After": "2"]), .status(200))
        let clock = VirtualClock()
        let seen = Collector<Duration?>()
        let recorder = RequestRewriter { request in
            seen.append(request.timeout)
            return request
        }
        _ = try await client([
            DeadlineInterceptor(callTimeout: .seconds(10), clock: clock), RetryInterceptor(clock: clock), recorder,
        ]).perform(RestingRequest(endpoint: items)).value
        #expect(clock.sleeps == [.seconds(2)])
        #expect(seen.all == [nil, nil])
        #expect(stub.received.map(\.request.timeout) == [.seconds(10), .seconds(8)])
    }

    @Test(
        "an attempt given no time fails as its limit would, before the transport is asked",
        arguments: [Duration.zero, .milliseconds(-5)])
    func attemptWithoutTime(_ attemptTimeout: Duration) async throws {
        let call = client([DeadlineInterceptor(attemptTimeout: attemptTimeout, clock: VirtualClock())])
            .perform(RestingRequest(endpoint: items))
        await #expect(throws: RestingError.deadlineExceeded(DeadlineExceeded(limit: .attempt, stage: .exchange))) {
            try await call.value
        }
        #expect(stub.received.isEmpty)
    }

    @Test("a request's own shorter timeout is kept")
    func shorterRequestTimeoutKept() async throws {
        stub.register(.get, "/items", .status(200))
        var request = RestingRequest(endpoint: items)
        request.timeout = .milliseconds(100)
        _ = try await client([DeadlineInterceptor(callTimeout: .seconds(3), clock: VirtualClock())]).perform(request)
            .value
        #expect(stub.received.map(\.request.timeout) == [.milliseconds(100)])
    }

    @Test("a retry whose wait would pass the deadline is not made: the call ends with the deadline's reason")
    func retryPastDeadline() async throws {
        stub.register(.get, "/items", .status(503, headers: ["Retry-After": "5"]), .status(200))
        let clock = VirtualClock()
        let events = Locked<[CallEvent.Kind]>([])
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [
                DeadlineInterceptor(callTimeout: .seconds(2), clock: clock), RetryInterceptor(clock: clock),
            ],
            eventListener: .shared { event in events.withLock { $0.append(event.kind) } })
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .retryWait))) {
            try await client.perform(RestingRequest(endpoint: items)).value
        }
        #expect(stub.received.count == 1 && clock.sleeps.isEmpty)
        #expect(events.withLock { $0 }.contains(.retryDeclined(attempt: 2, reason: .deadline)))
    }

    @Test("an attempt's timeout is retried like any timeout; the call's deadline is final")
    func attemptTimeoutIsRetried() async throws {
        stub.register(.get, "/items", StubResponse.status(200).delayed(by: .seconds(3600)), .status(200))
        let clock = VirtualClock()
        let response = try await client([
            DeadlineInterceptor(callTimeout: .seconds(3600), attemptTimeout: .milliseconds(20), clock: clock),
            RetryInterceptor(clock: clock),
        ]).perform(RestingRequest(endpoint: items)).value
        #expect(response.status == 200 && stub.received.count == 2)
    }

    @Test("an attempt cut by its timeout ends as deadlineExceeded(attempt); one cut by the call's deadline, (call)")
    func whichLimitEndedTheExchange() async throws {
        stub.register(.get, "/items", StubResponse.status(200).delayed(by: .seconds(3600)))
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .attempt, stage: .exchange))) {
            try await client([DeadlineInterceptor(attemptTimeout: .milliseconds(20))])
                .perform(RestingRequest(endpoint: items)).value
        }
        stub.register(.get, "/items", StubResponse.status(200).delayed(by: .seconds(3600)))
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .exchange))) {
            try await client([DeadlineInterceptor(callTimeout: .milliseconds(20), attemptTimeout: .seconds(60))])
                .perform(RestingRequest(endpoint: items)).value
        }
    }

    @Test("a deadline from the calling task flows into the call: a call made past it never starts")
    func taskLocalDeadline() async throws {
        stub.register(.get, "/items", .status(200))
        let clock = VirtualClock()
        let client = client([DeadlineInterceptor(callTimeout: .seconds(60), clock: clock)])
        try await CallDeadline.$current.withValue(clock.now + 0.25) {
            _ = try await client.perform(RestingRequest(endpoint: items)).value
        }
        #expect(stub.received.map(\.request.timeout) == [.milliseconds(250)])
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .start))) {
            try await CallDeadline.$current.withValue(clock.now - 1) {
                try await client.perform(RestingRequest(endpoint: items)).value
            }
        }
        #expect(stub.received.count == 1)
    }

    @Test("the call's time limit can be set per request, in place of the interceptor's")
    func perRequestCallTimeout() async throws {
        stub.register(.get, "/items", .status(200))
        var request = RestingRequest(endpoint: items)
        request.attributes.callTimeout = .milliseconds(700)
        _ = try await client([DeadlineInterceptor(callTimeout: .seconds(60), clock: VirtualClock())]).perform(request)
            .value
        #expect(stub.received.map(\.request.timeout) == [.milliseconds(700)])
    }

    @Test("the error says which limit, and where")
    func description() {
        #expect(
            RestingError.deadlineExceeded(.init(limit: .call, stage: .retryWait)).description
                == "the call's deadline passed during retryWait")
        #expect(RestingError.deadlineExceeded(.init(limit: .attempt, stage: .exchange)).errorType == "deadlineExceeded")
    }
}
