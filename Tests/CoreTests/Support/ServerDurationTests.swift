import Foundation
import RestingTesting
import Testing

@testable import RestingCache
@testable import RestingCookies
@testable import RestingCore
@testable import RestingPagination
@testable import RestingResilience
@testable import RestingStreaming

/// Every duration a server chooses is clamped by one function (``ServerDuration``): each reader of one is fed huge,
/// negative, fractional, exponent and far-future values, and nothing it returns is longer than its use's ceiling.
@Suite("A server's durations are clamped")
struct ServerDurationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// What a buggy or hostile server sends where a number of seconds (or a date) belongs.
    static let hostileValues = [
        "999999999", "3000000000", "9999999999", "99999999999999999999999999999999", "18446744073709551616", "-1",
        "-9999999999", "1.5", "0.001", "1e10", "inf", "NaN", " 60 ", "", "0x10", "+5", "Fri, 31 Dec 9999 23:59:59 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT", HTTPDate.format(now + 1e12), HTTPDate.format(now - 1e12),
    ]

    func expectWithin(_ duration: Duration?, _ use: ServerDuration.Use, _ value: String) {
        guard let duration else { return }
        #expect(duration >= .zero && duration <= use.ceiling, "\(use) from \(value.debugDescription): \(duration)")
    }

    @Test("each use's ceiling holds for any number, and nothing is negative")
    func clamp() {
        for use in ServerDuration.Use.allCases {
            for seconds in [-1e300, -1, 0, 0.0004, 1, 1e9, 1e300, .infinity, -.infinity, .nan] {
                expectWithin(ServerDuration.clamped(seconds: seconds, for: use), use, "\(seconds)")
            }
            #expect(ServerDuration.parse("99999999999999999999999999", for: use) == use.ceiling)
            #expect(ServerDuration.parse("60", for: use) == .seconds(60))
            #expect(ServerDuration.parse("-60", for: use) == nil && ServerDuration.parse("1.5", for: use) == nil)
        }
    }

    @Test("Retry-After, in seconds or as a date, waits an hour at the most")
    func retryAfter() {
        for value in Self.hostileValues {
            expectWithin(RetryAfter.delay(value, now: Self.now), .retryAfter, value)
        }
        #expect(RetryAfter.delay("3000000000", now: Self.now) == .seconds(3600))
        #expect(RetryAfter.delay(HTTPDate.format(Self.now + 90), now: Self.now) == .seconds(90))
    }

    @Test("a rate limit's reset, in every field that carries one, is an hour at the most")
    func rateLimitResets() {
        for value in Self.hostileValues {
            let fields = [
                ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": value],
                ["RateLimit-Remaining": "0", "RateLimit-Reset": value],
                ["RateLimit": "limit=10, remaining=0, reset=\(value)"], ["RateLimit": "\"default\";r=0;t=\(value)"],
            ]
            for headers in fields {
                let read = RateLimitFields(HTTPHeaderFields(headers.map { ($0.key, $0.value) }), now: Self.now)
                expectWithin(read.remaining?.reset, .rateLimitReset, value)
            }
            let policy = RateLimitFields(["RateLimit-Policy": "\"default\";q=1;w=\(value)"], now: Self.now)
            expectWithin(policy.policy?.window, .rateLimitReset, value)
        }
    }

    @Test("a poll's back-off header and Retry-After wait an hour at the most")
    func pollBackoff() {
        let schedule = PollingSchedule(every: .seconds(1), clock: VirtualClock(now: Self.now))
            .honouring(secondsIn: "Backoff")
        for value in Self.hostileValues {
            expectWithin(schedule.delay(after: ["Backoff": value]), .backoff, value)
            expectWithin(schedule.delay(after: ["Retry-After": value]), .backoff, value)
        }
        let ownRule = PollingSchedule(every: .seconds(1)) { _, _ in .seconds(Int64.max) }
        #expect(ownRule.delay(after: [:]) == ServerDuration.Use.backoff.ceiling, "an app's own reading is clamped too")
    }

    @Test("an event stream's retry: field is an hour at the most")
    func eventStreamRetry() throws {
        for value in Self.hostileValues {
            var parser = EventStreamParser()
            _ = try parser.parse(Data("retry: \(value)\n\n".utf8))
            expectWithin(parser.reconnectionDelay, .eventStreamRetry, value)
        }
    }

    @Test("a cached response's lifetime and age are a year at the most")
    func cacheLifetime() {
        for value in Self.hostileValues {
            let fields: [HTTPHeaderFields] = [
                ["Cache-Control": "max-age=\(value)"], ["Expires": value, "Date": HTTPDate.format(Self.now)],
                ["Age": value, "Cache-Control": "max-age=10"],
            ]
            for headers in fields {
                let stored = CachedResponse(
                    url: URL(string: "https://h.example/")!, status: 200, headers: headers, body: Data(),
                    requestTime: Self.now, responseTime: Self.now)
                let freshness = CacheFreshness(stored, now: Self.now)
                #expect(freshness.lifetime <= ServerDuration.Use.cacheLifetime.ceiling.seconds, "\(headers)")
                #expect(freshness.lifetime >= 0 && freshness.age >= 0, "\(headers)")
            }
        }
    }

    @Test("a cookie's lifetime is 400 days at the most, and a date past expires it")
    func cookieLifetime() async throws {
        for value in Self.hostileValues {
            for attribute in ["Max-Age=\(value)", "Expires=\(value)"] {
                let jar = InMemoryCookieJar(now: { Self.now })
                try await jar.receive(setCookieFields: ["a=b; \(attribute)"], from: URL(string: "https://h.example/")!)
                for cookie in jar.allCookies {
                    let lifetime = cookie.expires.map { $0.timeIntervalSince(Self.now) } ?? 0
                    #expect(lifetime <= ServerDuration.Use.cookieLifetime.ceiling.seconds, "\(attribute)")
                }
            }
        }
    }
}
