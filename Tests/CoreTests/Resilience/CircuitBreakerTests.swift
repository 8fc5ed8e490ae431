import Foundation
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    typealias Policy = CircuitBreakerInterceptor.Policy
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let policy = Policy(
        window: .count(10), minimumCalls: 4, failureRateThreshold: 0.5, openDuration: .seconds(30),
        halfOpenProbes: 2)

    /// A breaker that has seen `outcomes` as closed calls, at `start`.
    private func breaker(after outcomes: [CircuitBreaker.Outcome]) -> CircuitBreaker {
        var breaker = CircuitBreaker(policy: policy)
        for outcome in outcomes {
            let (admission, _) = breaker.admit(now: start, policy: policy)
            _ = breaker.record(outcome, of: admission, now: start, policy: policy)
        }
        return breaker
    }

    @Test("closed: failures below the minimum number of calls never open it, whatever their rate")
    func belowMinimumCalls() {
        let breaker = breaker(after: [.failure, .failure, .failure])
        #expect(breaker.state(now: start) == .closed)
    }

    @Test("closed → open once the window holds the minimum calls and the failure rate reaches the threshold")
    func opensAtThreshold() {
        var breaker = breaker(after: [.success, .failure, .success])
        let (admission, _) = breaker.admit(now: start, policy: policy)
        #expect(breaker.record(.failure, of: admission, now: start, policy: policy) == .init(from: .closed, to: .open))
        #expect(breaker.state(now: start) == .open)
    }

    @Test("ignored outcomes (cancelled calls, failures the policy does not count) never enter the window")
    func ignoredOutcomes() {
        let breaker = breaker(after: [.failure, .ignored, .ignored, .failure, .ignored, .success])
        #expect(breaker.state(now: start) == .closed)
    }

    @Test("open: a call is rejected with the time until the breaker lets a probe through")
    func openRejects() {
        var breaker = breaker(after: [.failure, .failure, .failure, .failure])
        let (admission, moved) = breaker.admit(now: start + 10, policy: policy)
        #expect(admission == .rejected(retryAfter: .seconds(20)) && moved == nil)
    }

    @Test("open → half-open when the open duration has passed: that call is the first probe")
    func halfOpensAfterTheWait() {
        var breaker = breaker(after: [.failure, .failure, .failure, .failure])
        let (admission, moved) = breaker.admit(now: start + 30, policy: policy)
        #expect(admission == .probe(round: 1) && moved == .init(from: .open, to: .halfOpen))
    }

    @Test("half-open: at most the policy's probes are out; the rest fail fast until one ends")
    func boundedProbes() {
        var breaker = breaker(after: [.failure, .failure, .failure, .failure])
        let first = breaker.admit(now: start + 30, policy: policy).0
        #expect(breaker.admit(now: start + 30, policy: policy).0 == .probe(round: 1))
        #expect(breaker.admit(now: start + 30, policy: policy).0 == .rejected(retryAfter: .zero))
        _ = breaker.record(.ignored, of: first, now: start + 31, policy: policy)
        #expect(
            breaker.admit(now: start + 31, policy: policy).0 == .probe(round: 1), "a cancelled probe's turn is free")
    }

    @Test("half-open → closed when every probe succeeds, with an empty window")
    func probesClose() {
        var breaker = breaker(after: [.failure, .failure, .failure, .failure])
        let first = breaker.admit(now: start + 30, policy: policy).0
        let second = breaker.admit(now: start + 30, policy: policy).0
        #expect(breaker.record(.success, of: first, now: start + 31, policy: policy) == nil)
        #expect(
            breaker.record(.success, of: second, now: start + 31, policy: policy) == .init(from: .halfOpen, to: .closed)
        )
        #expect(breaker.phase == .closed(OutcomeWindow(policy.window)))
    }

    @Test("half-open → open again on a probe's failure; a probe of that round ending later changes nothing")
    func probeFailureReopens() {
        var breaker = breaker(after: [.failure, .failure, .failure, .failure])
        let first = breaker.admit(now: start + 30, policy: policy).0
        let second = breaker.admit(now: start + 30, policy: policy).0
        #expect(
            breaker.record(.failure, of: first, now: start + 31, policy: policy) == .init(from: .halfOpen, to: .open))
        #expect(breaker.state(now: start + 40) == .open)
        let nextRound = breaker.admit(now: start + 61, policy: policy)
        #expect(nextRound.0 == .probe(round: 2))
        #expect(breaker.record(.success, of: second, now: start + 62, policy: policy) == nil)
        #expect(breaker.phase == .halfOpen(inFlight: 1, succeeded: 0))
    }

    @Test("a late outcome of a call admitted while closed does not touch an open breaker")
    func lateOutcomeIgnored() {
        var breaker = breaker(after: [.failure, .failure, .failure])
        let late = breaker.admit(now: start, policy: policy).0
        let (last, _) = breaker.admit(now: start, policy: policy)
        _ = breaker.record(.failure, of: last, now: start, policy: policy)
        let open = breaker.phase
        #expect(breaker.record(.success, of: late, now: start + 1, policy: policy) == nil && breaker.phase == open)
    }

    @Test("a time window forgets outcomes older than its span")
    func timeWindowForgets() {
        var window = OutcomeWindow(.time(.seconds(10)))
        for second in 0..<5 { window.record(failure: true, now: start + Double(second)) }
        #expect(window.counts(now: start + 5) == (5, 5))
        window.record(failure: false, now: start + 12)
        #expect(window.counts(now: start + 12) == (3, 2), "the buckets of seconds 0 to 2 have aged out")
        #expect(window.counts(now: start + 30) == (0, 0))
    }

    @Test("a count window keeps the last n outcomes: each counts while it is among them, and no longer")
    func countWindow() {
        var window = OutcomeWindow(.count(3))
        let outcomes = [true, true, false, false, false, true, false, true, true, true]
        for (index, failure) in outcomes.enumerated() {
            window.record(failure: failure, now: start)
            let last = outcomes[max(0, index - 2)...index]
            #expect(window.counts(now: start) == (last.count, last.filter { $0 }.count), "after outcome \(index)")
        }
    }

    // MARK: The interceptor

    let url = URL(string: "https://api.example.com/items")!

    @Test("an open breaker fails the call without passing it on, naming the origin and when it tries again")
    func interceptorFailsFast() async throws {
        let clock = VirtualClock()
        let interceptor = CircuitBreakerInterceptor(policy: policy, clock: clock)
        let chain = FakeChain(.status(503))
        for _ in 0..<4 { _ = try await chain.run(interceptor, on: HTTPRequest(method: .get, url: url)) }
        #expect(interceptor.state(for: "https://api.example.com:443") == .open)
        clock.advance(by: .seconds(5))
        await #expect(throws: ResilienceError.circuitOpen(key: "https://api.example.com:443", retryAfter: .seconds(25)))
        {
            try await chain.run(interceptor, on: HTTPRequest(method: .get, url: url))
        }
        #expect(chain.callCount == 4)
    }

    @Test("4xx answers are the caller's fault: they keep the breaker closed; 5xx and transport failures open it")
    func whatCountsAsFailure() {
        let policy = Policy()
        let url = url
        #expect(policy.outcome(of: .success(HTTPDataResponse(status: 404, url: url))) == .success)
        #expect(policy.outcome(of: .success(HTTPDataResponse(status: 502, url: url))) == .failure)
        #expect(
            policy.outcome(
                of: .failure(RestingError.httpError(HTTPError(status: 500, headers: [:], body: Data(), url: url))))
                == .failure)
        #expect(
            policy.outcome(
                of: .failure(
                    RestingError.transportFailed(TransportError(kind: .timedOut, code: 28, domain: "test", message: ""))
                )) == .failure)
        #expect(
            policy.outcome(of: .failure(RestingError.deadlineExceeded(.init(limit: .attempt, stage: .exchange))))
                == .failure)
        #expect(policy.outcome(of: .failure(RestingError.cancelled)) == .ignored)
        var onlyConnect = Policy()
        onlyConnect.failingTransportErrors = [.connectionFailed]
        #expect(
            onlyConnect.outcome(
                of: .failure(
                    RestingError.transportFailed(
                        TransportError(kind: .tlsFailed, code: 35, domain: "test", message: ""))))
                == .ignored)
    }

    @Test("each key has its breaker: one origin's outage leaves another's calls alone")
    func perKey() async throws {
        let interceptor = CircuitBreakerInterceptor(policy: policy, clock: VirtualClock())
        let failing = FakeChain(.status(503))
        for _ in 0..<4 { _ = try await failing.run(interceptor, on: HTTPRequest(method: .get, url: url)) }
        var search = HTTPRequest(method: .get, url: url)
        search.attributes.resilienceKey = "search"
        #expect(try await FakeChain(.status(200)).run(interceptor, on: search).status == 200)
        #expect(interceptor.state(for: "search") == .closed)
    }

    @Test("the call that moves the breaker reports it in the event stream; a rejected call fails as circuitOpen")
    func events() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/items", .status(503), .status(503), .status(503), .status(503))
        let events = Locked<[CallEvent.Kind]>([])
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [CircuitBreakerInterceptor(policy: policy, clock: VirtualClock())],
            eventListener: .shared { event in events.withLock { $0.append(event.kind) } })
        let items = Endpoint<Nothing, Data>(.get, "/items")
        for _ in 0..<5 { _ = try? await client.perform(RestingRequest(endpoint: items)).value }
        let kinds = events.withLock { $0 }
        #expect(
            kinds.contains(
                .capability(
                    ResilienceEvent.circuitBreakerChanged(key: "https://api.example.com:443", from: .closed, to: .open))
            ))
        #expect(kinds.last.map { if case .callFailed("circuitOpen", _) = $0 { true } else { false } } == true)
        #expect(stub.received.count == 4)
    }
}

@Suite("The key of a call's origin")
struct OriginKeyTests {
    @Test(
        "read from the URL's text, it is the origin Origin(url) describes",
        arguments: [
            "https://api.example.com/items", "HTTPS://API.Example.COM:443/x?y#z",
            "http://user:pa:ss@host.example:8080/",
            "http://127.0.0.1:49152", "http://[::1]:8080/path", "http://[fe80::1]/", "https://h.example:08443/",
            "http://h.example:/x", "http://xn--bcher-kva.example/", "http://h.example?q=1", "http://h.example#f",
            "ftp://files.example/", "http://%68ost.example/", "https://bücher.example/", "http://h.example:99999/",
            "HtTp://H.EXAMPLE:80/", "https://h.example:65535/", "http://h.example:65536/", "https://h.example:0/",
            "httpx://h.example/", "htt://h.example/", "http:/h.example/", "http://@h.example/",
        ])
    func matchesOrigin(_ text: String) throws {
        guard let url = URL(string: text) else { return }
        #expect(Origin.key(of: url) == Origin(url)?.description, "\(text)")
    }
}

extension CircuitBreakerTests {
    @Test("a key with a policy of its own opens by it; the others by the client's")
    func perKeyPolicy() async throws {
        let strict = Policy(window: .count(2), minimumCalls: 1, failureRateThreshold: 1)
        let interceptor = CircuitBreakerInterceptor(policy: policy, policies: ["search": strict], clock: VirtualClock())
        var search = HTTPRequest(method: .get, url: url)
        search.attributes.resilienceKey = "search"
        _ = try await FakeChain(.status(503)).run(interceptor, on: search)
        _ = try await FakeChain(.status(503)).run(interceptor, on: HTTPRequest(method: .get, url: url))
        #expect(interceptor.state(for: "search") == .open)
        #expect(interceptor.state(for: "https://api.example.com:443") == .closed)
    }
}
