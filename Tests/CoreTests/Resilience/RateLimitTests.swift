import Foundation
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("Rate limit")
struct RateLimitTests {
    typealias Limit = RateLimitInterceptor.Limit
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let url = URL(string: "https://api.example.com/items")!
    let origin = "https://api.example.com:443"

    private func reserve(
        _ bucket: inout TokenBucket, at seconds: Double, limit: Limit = Limit(requests: 2, per: .seconds(1))
    )
        -> TokenBucket.Reservation
    {
        bucket.reserve(now: start + seconds, limit: limit, maximumWait: .seconds(10), maximumWaiting: 5)
    }

    @Test("a full bucket grants its burst at once, then one token per 1/rate, in the order calls came")
    func burstThenRate() {
        var bucket = TokenBucket(limit: Limit(requests: 2, per: .seconds(1)), now: start)
        #expect(reserve(&bucket, at: 0) == .granted(wait: .zero))
        #expect(reserve(&bucket, at: 0) == .granted(wait: .zero))
        #expect(reserve(&bucket, at: 0) == .granted(wait: .milliseconds(500)))
        #expect(reserve(&bucket, at: 0) == .granted(wait: .seconds(1)))
        #expect(bucket.waiting == 2)
    }

    @Test("a bucket refills with time, up to its burst and no further")
    func refill() {
        var bucket = TokenBucket(limit: Limit(requests: 2, per: .seconds(1)), now: start)
        _ = reserve(&bucket, at: 0)
        _ = reserve(&bucket, at: 0)
        #expect(reserve(&bucket, at: 60) == .granted(wait: .zero))
        #expect(bucket.tokens == 1)
    }

    @Test("a call that would wait past the longest wait, or find the queue full, is refused with the time to wait")
    func bounds() {
        var bucket = TokenBucket(limit: Limit(requests: 1, per: .seconds(1)), now: start)
        _ = bucket.reserve(
            now: start, limit: Limit(requests: 1, per: .seconds(1)), maximumWait: .seconds(2), maximumWaiting: 1)
        #expect(
            bucket.reserve(
                now: start, limit: Limit(requests: 1, per: .seconds(1)), maximumWait: .seconds(2), maximumWaiting: 1)
                == .granted(wait: .seconds(1)))
        #expect(
            bucket.reserve(
                now: start, limit: Limit(requests: 1, per: .seconds(1)), maximumWait: .seconds(9), maximumWaiting: 1)
                == .refused(retryAfter: .seconds(2)), "one call waits already")
        var other = TokenBucket(limit: Limit(requests: 1, per: .seconds(10)), now: start)
        _ = other.reserve(
            now: start, limit: Limit(requests: 1, per: .seconds(10)), maximumWait: .seconds(2), maximumWaiting: 9)
        #expect(
            other.reserve(
                now: start, limit: Limit(requests: 1, per: .seconds(10)), maximumWait: .seconds(2), maximumWaiting: 9)
                == .refused(retryAfter: .seconds(10)))
    }

    @Test("a cancelled wait gives its token back")
    func cancelledWait() {
        var bucket = TokenBucket(limit: Limit(requests: 1, per: .seconds(1)), now: start)
        _ = reserve(&bucket, at: 0, limit: Limit(requests: 1, per: .seconds(1)))
        _ = reserve(&bucket, at: 0, limit: Limit(requests: 1, per: .seconds(1)))
        bucket.cancelWait()
        #expect(
            bucket.waiting == 0
                && reserve(&bucket, at: 0, limit: Limit(requests: 1, per: .seconds(1))) == .granted(wait: .seconds(1)))
    }

    @Test("a pause holds every call until it ends, however many tokens there are")
    func pause() {
        var bucket = TokenBucket(limit: Limit(requests: 10, per: .seconds(1)), now: start)
        bucket.pause(until: start + 2)
        #expect(reserve(&bucket, at: 0, limit: Limit(requests: 10, per: .seconds(1))) == .granted(wait: .seconds(2)))
        #expect(reserve(&bucket, at: 3, limit: Limit(requests: 10, per: .seconds(1))) == .granted(wait: .zero))
    }

    @Test("a quota with some left caps what is sent before its reset; at zero it pauses the bucket until the reset")
    func serverQuota() {
        let limit = Limit(requests: 100, per: .seconds(1))
        var bucket = TokenBucket(limit: limit, now: start)
        var fields = RateLimitFields([:], now: start)
        fields.remaining = (2, .seconds(10))
        #expect(bucket.learn(fields, now: start) == nil)
        #expect(reserve(&bucket, at: 0, limit: limit) == .granted(wait: .zero))
        #expect(reserve(&bucket, at: 0, limit: limit) == .granted(wait: .zero))
        #expect(
            reserve(&bucket, at: 1, limit: limit) == .granted(wait: .seconds(9)), "the quota is spent until the reset")
        bucket.endWait()
        fields.remaining = (0, .seconds(4))
        #expect(bucket.learn(fields, now: start + 20) == .seconds(4))
        #expect(bucket.pausedUntil == start + 24)
    }

    @Test(
        "the fields servers announce their limits in are read; anything malformed is ignored",
        arguments: [
            (["RateLimit": "\"default\";r=5;t=30"], 5, 30),
            (["RateLimit": "\"burst\";r=50;t=1, \"day\";r=3;t=3600"], 3, 3600),
            (["RateLimit": "limit=10, remaining=4, reset=7"], 4, 7),
            (["RateLimit-Remaining": "0", "RateLimit-Reset": "12"], 0, 12),
            (["X-RateLimit-Remaining": "9", "X-RateLimit-Reset": "1700000060"], 9, 60),
            (["X-RateLimit-Remaining": "-1", "X-RateLimit-Reset": "5"], nil, nil),
            (["RateLimit": "\"default\";r=five;t=30"], nil, nil),
            (["X-RateLimit-Remaining": "99999999999", "X-RateLimit-Reset": "5"], nil, nil),
        ] as [([String: String], Int?, Int?)])
    func fields(headers: [String: String], remaining: Int?, reset: Int?) {
        let fields = RateLimitFields(HTTPHeaderFields(headers.map { ($0.key, $0.value) }), now: start)
        #expect(fields.remaining?.count == remaining)
        #expect(fields.remaining?.reset == reset.map { .seconds($0) })
    }

    @Test("a RateLimit-Policy is read as requests per window, the strictest of its policies")
    func policyField() {
        let fields = RateLimitFields(["RateLimit-Policy": "\"burst\";q=100;w=60, \"slow\";q=10;w=60"], now: start)
        #expect(fields.policy?.requests == 10 && fields.policy?.window == .seconds(60))
        #expect(RateLimitFields(["RateLimit-Policy": "10;w=1"], now: start).policy?.requests == 10)
    }

    @Test("a server policy stricter than the client's replaces it")
    func stricterServerPolicy() {
        let limit = Limit(requests: 100, per: .seconds(1), burst: 1)
        var bucket = TokenBucket(limit: limit, now: start)
        _ = bucket.learn(RateLimitFields(["RateLimit-Policy": "\"default\";q=1;w=10"], now: start), now: start)
        #expect(reserve(&bucket, at: 0, limit: limit) == .granted(wait: .zero))
        #expect(reserve(&bucket, at: 0, limit: limit) == .granted(wait: .seconds(10)))
    }

    // MARK: The interceptor

    @Test("calls past the burst wait on the clock for their tokens, and report the wait")
    func interceptorWaits() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 4, per: .seconds(1), burst: 1), clock: clock)
        let chain = FakeChain(.status(200))
        for _ in 0..<3 { _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: url)) }
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
    }

    @Test("a 429 with Retry-After pauses that key only: the next call to it waits, another key's does not")
    func retryAfterPausesOneKey() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 100, per: .seconds(1)), clock: clock)
        _ = try await FakeChain(.status(429, headers: ["Retry-After": "2"])).run(
            limiter, on: HTTPRequest(method: .get, url: url))
        #expect(limiter.pausedUntil(for: origin) == clock.now + 2)
        let other = URL(string: "https://other.example.com/")!
        _ = try await FakeChain(.status(200)).run(limiter, on: HTTPRequest(method: .get, url: other))
        #expect(clock.sleeps.isEmpty)
        _ = try await FakeChain(.status(200)).run(limiter, on: HTTPRequest(method: .get, url: url))
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("an API's named back-off header pauses the key on any answer, an hour at the most; unnamed, it is ignored")
    func namedBackoffHeader() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: Limit(requests: 100, per: .seconds(1)), backoffHeaders: ["Backoff"], clock: clock)
        _ = try await FakeChain(.status(200, headers: ["Backoff": "5"])).run(
            limiter, on: HTTPRequest(method: .get, url: url))
        #expect(limiter.pausedUntil(for: origin) == clock.now + 5)
        _ = try await FakeChain(.status(200)).run(limiter, on: HTTPRequest(method: .get, url: url))
        #expect(clock.sleeps == [.seconds(5)], "the next call waited out the back-off")

        _ = try await FakeChain(.status(200, headers: ["Backoff": "99999999999"])).run(
            limiter, on: HTTPRequest(method: .get, url: url))
        let pause = try #require(limiter.pausedUntil(for: origin)).timeIntervalSince(clock.now)
        #expect(pause > 0 && pause <= 3600)

        let unnamed = RateLimitInterceptor(limit: Limit(requests: 100, per: .seconds(1)), clock: clock)
        _ = try await FakeChain(.status(200, headers: ["Backoff": "5", "Retry-After": "7"])).run(
            unnamed, on: HTTPRequest(method: .get, url: url))
        #expect(unnamed.pausedUntil(for: origin) == nil, "a 200's Retry-After and an unnamed header ask nothing")
    }

    @Test(
        "one response pauses a key for an hour at the most, whatever it asks for",
        arguments: [
            (200, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "999999999"]),
            (429, ["Retry-After": "3000000000"]), (200, ["RateLimit": "limit=10, remaining=0, reset=9999999999"]),
            (200, ["RateLimit": "\"default\";r=0;t=9999999999"]),
        ])
    func pauseIsClamped(_ status: Int, _ headers: [String: String]) async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 100, per: .seconds(1)), clock: clock)
        let fields = HTTPHeaderFields(headers.map { ($0.key, $0.value) })
        _ = try await FakeChain(.status(status, headers: fields)).run(limiter, on: HTTPRequest(method: .get, url: url))
        let pause = try #require(limiter.pausedUntil(for: origin)).timeIntervalSince(clock.now)
        #expect(pause > 0 && pause <= 3600)
        clock.advance(by: .seconds(3600))
        #expect(limiter.pausedUntil(for: origin) == nil, "an hour later the key sends again")
    }

    @Test("a redirect's target, another origin, cannot pause the caller's key")
    func redirectedAnswerIsNotLearned() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 100, per: .seconds(1)), clock: clock)
        let elsewhere = URL(string: "https://elsewhere.example.net/landing")!
        let redirected = FakeChain { _ in
            HTTPDataResponse(status: 429, headers: ["Retry-After": "60"], url: elsewhere)
        }
        _ = try await redirected.run(limiter, on: HTTPRequest(method: .get, url: url))
        #expect(limiter.pausedUntil(for: origin) == nil)
        let sameOrigin = FakeChain { request in
            HTTPDataResponse(status: 429, headers: ["Retry-After": "60"], url: request.url)
        }
        _ = try await sameOrigin.run(limiter, on: HTTPRequest(method: .get, url: url))
        #expect(limiter.pausedUntil(for: origin) == clock.now + 60, "the origin's own answer still counts")
    }

    @Test("a call that would wait past the limiter's longest wait fails at once as rateLimited, and takes no token")
    func refusedCall() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: Limit(requests: 1, per: .seconds(60)), maximumWait: .seconds(5), clock: clock)
        let chain = FakeChain(.status(200))
        _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        await #expect(throws: ResilienceError.rateLimited(key: origin, retryAfter: .seconds(60))) {
            try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        }
        #expect(chain.callCount == 1 && clock.sleeps.isEmpty)
    }

    @Test("a wait that would pass the call's deadline fails at once with the deadline's reason")
    func waitPastDeadline() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 1, per: .seconds(10)), clock: clock)
        let deadline = DeadlineInterceptor(callTimeout: .seconds(1), clock: clock)
        let chain = FakeChain(.status(200))
        _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .rateLimitWait))) {
            try await deadline.intercept(
                request: HTTPRequest(method: .get, url: url),
                execution: InterceptorExecution { try await limiter.intercept(request: $0, execution: chain.execution) }
            )
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a waiting call that is cancelled ends as cancelled and gives its token back")
    func cancelledWhileWaiting() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: Limit(requests: 1, per: .seconds(1)), clock: clock)
        let chain = FakeChain(.status(200))
        _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        let url = url
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        }
        await #expect(throws: RestingError.cancelled) { try await cancelled.value }
        _ = try await chain.run(limiter, on: HTTPRequest(method: .get, url: url))
        #expect(clock.sleeps == [.seconds(1)], "the next call waits for one token, not two")
    }
}
