import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps a client within a rate — its own, and the one its server announces — by making calls wait for a token
/// of their key's bucket (OkHttp and async-http-client have none; Polly's rate limiter and Envoy's local rate
/// limit are the models).
///
/// - **The bucket**: ``Limit/requests`` per ``Limit/interval``, bursts of ``Limit/burst``, one per
///   ``RestingCore/RequestAttributes/resilienceKey`` (by default the origin). Calls wait for a token in the order they came,
///   at most ``maximumWait`` each and ``maximumWaiting`` at a time; a call that would wait longer, or find the
///   queue full, fails at once with ``ResilienceError/rateLimited(key:retryAfter:)``. A waiting call is cancellable.
/// - **The server's word**: a `429` or `503` with `Retry-After` pauses that key's bucket for the delay asked;
///   `RateLimit` / `RateLimit-Remaining` / `X-RateLimit-Remaining` at zero pause it until the announced reset, and
///   above zero cap what is sent before it; a `RateLimit-Policy` stricter than ``limit`` replaces it. The client
///   slows down before it is refused. An API's own back-off header, named in ``backoffHeaders`` (Kinto's `Backoff`,
///   seconds), pauses the key for as long on any answer, an hour at the most.
///
/// Put it inside ``/RestingCore/RetryInterceptor`` and ``HedgingInterceptor``, so that every attempt and hedge takes a token
/// and a 429 pauses the attempts that follow.
///
/// ```swift
/// let limiter = RateLimitInterceptor(limit: .init(requests: 50, per: .seconds(1), burst: 10))
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [RetryInterceptor(), limiter])
/// ```
public final class RateLimitInterceptor: PlacedInterceptor {
    /// A rate: `requests` per `interval`, with bursts of up to `burst`.
    public struct Limit: Sendable, Equatable {
        /// Requests per ``interval`` in the long run.
        public var requests: Int
        /// The interval ``requests`` are counted over.
        public var interval: Duration
        /// Requests that may go at once after a quiet spell. Default: ``requests``.
        public var burst: Int

        /// `requests` per `interval`, with bursts of `burst` (default `requests`).
        public init(requests: Int, per interval: Duration, burst: Int? = nil) {
            self.requests = max(1, requests)
            self.interval = interval > .zero ? interval : .seconds(1)
            self.burst = max(1, burst ?? requests)
        }

        var ratePerSecond: Double { Double(requests) / interval.seconds }
    }

    /// The rate of every key without one of its own in ``limits``.
    public let limit: Limit
    /// Rates of particular keys.
    public let limits: [String: Limit]
    /// The longest a call waits for a token before it fails with ``ResilienceError/rateLimited(key:retryAfter:)``.
    public let maximumWait: Duration
    /// The most calls that wait for a token of one key at a time.
    public let maximumWaiting: Int
    /// Headers whose value, in seconds, asks the client to send nothing for that long, on any answer.
    public let backoffHeaders: [String]
    private let clock: any InterceptorClock
    private let buckets: Locked<BoundedMap<String, TokenBucket>>

    /// A limiter giving each key `limit` (or its own in `limits`), waiting at most `maximumWait` and `maximumWaiting`
    /// calls, pausing a key for the seconds an answer gives in one of `backoffHeaders`, timed by `clock` (a
    /// `VirtualClock` in tests).
    ///
    /// ```swift
    /// let limiter = RateLimitInterceptor(limit: .init(requests: 20, per: .seconds(1)), backoffHeaders: ["Backoff"])
    /// ```
    public init(
        limit: Limit, limits: [String: Limit] = [:], maximumWait: Duration = .seconds(30), maximumWaiting: Int = 1_000,
        backoffHeaders: [String] = [], clock: any InterceptorClock = SystemClock()
    ) {
        self.limit = limit
        self.limits = limits
        self.maximumWait = maximumWait
        self.maximumWaiting = maximumWaiting
        self.backoffHeaders = backoffHeaders
        self.clock = clock
        buckets = Locked(BoundedMap { bucket, now in bucket.holdsState(at: now) })
    }

    /// Until when `key` is paused at its server's request, if it is.
    public func pausedUntil(for key: String) -> Date? {
        let now = clock.now
        return buckets.withLock { $0[key]?.pausedUntil }.flatMap { $0 > now ? $0 : nil }
    }

    /// How many keys it keeps state for (bounded: ``BoundedMap``).
    package var keyCount: Int { buckets.withLock { $0.count } }

    /// Waits for a token of the request's key, passes the request on, and takes in what the answer says of the
    /// server's limits.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        let key = request.resilienceKey
        let (wait, reservedAt) = try reserveToken(for: key)
        if wait > .zero { try await waitForToken(wait, reservedAt: reservedAt, key: key, request) }
        let result = await Result { try await execution(request) }
        // Only the request's own origin speaks for its quota: a redirect's target cannot pause the caller's key.
        // (A response that does not say where it came from is the request's.)
        // Whether the answer speaks of a limit is asked first: most do not, and then no URL is compared.
        if let head = result.responseHead, mentionsALimit(head),
            result.responseURL.map({ $0 == request.url || Origin.same($0, request.url) }) ?? true
        {
            learn(from: head, for: key, request)
        }
        return try result.get()
    }

    /// Reserves a token of `key`'s bucket: how long until it is due (zero, most often), and when it was reserved.
    /// Not async: a call whose token is there at once makes no async call for it.
    private func reserveToken(for key: String) throws(ResilienceError) -> (wait: Duration, at: Date) {
        let (limit, now) = (limits[key] ?? self.limit, clock.now)
        let reservation = buckets.withLock { buckets in
            buckets.withValue(for: key, now: now, default: TokenBucket(limit: limit, now: now)) {
                $0.reserve(now: now, limit: limit, maximumWait: maximumWait, maximumWaiting: maximumWaiting)
            }
        }
        switch reservation {
        case .refused(let retryAfter): throw .rateLimited(key: key, retryAfter: retryAfter)
        case .granted(let wait): return (wait, now)
        }
    }

    /// Waits `wait` for the token reserved at `reservedAt`, giving it back when the wait is cut short. On the
    /// caller's executor, as `intercept` is; out of line, so that the frame held while the call is out does not keep
    /// room for the wait.
    @inline(never)
    nonisolated(nonsending) private func waitForToken(
        _ wait: Duration, reservedAt: Date, key: String, _ request: HTTPRequest
    ) async throws {
        do {
            if let limits = request.exchangeDeadline, limits.cannotWait(wait) {
                throw RestingError.deadlineExceeded(DeadlineExceeded(limit: .call, stage: .rateLimitWait))
            }
            try await clock.sleep(for: wait)
        } catch {
            buckets.withLock { _ = $0.update(key, now: reservedAt) { $0.cancelWait() } }
            throw error as? RestingError ?? .cancelled
        }
        buckets.withLock { _ = $0.update(key, now: reservedAt) { $0.endWait() } }
        request.events?.report(.capability(ResilienceEvent.rateLimitWaited(key: key, waited: wait)))
    }

    /// Whether `head` may say anything of a limit: most answers do not, which one pass over their names shows —
    /// with no clock read, field lookup or URL comparison.
    private func mentionsALimit(_ head: (status: Int, headers: HTTPHeaderFields)) -> Bool {
        head.status == 429 || head.status == 503 || RateLimitFields.mayBeIn(head.headers, or: backoffHeaders)
    }

    private func learn(from head: (status: Int, headers: HTTPHeaderFields), for key: String, _ request: HTTPRequest) {
        let now = clock.now
        var asked: Duration?
        if head.status == 429 || head.status == 503, let field = head.headers["Retry-After"],
            let delay = RetryAfter.delay(field, now: now)
        {
            asked = delay
        }
        for name in backoffHeaders {
            guard let backoff = head.headers[name].flatMap({ ServerDuration.parse($0, for: .backoff) }) else {
                continue
            }
            asked = max(asked ?? .zero, backoff)
        }
        let fields = RateLimitFields(head.headers, now: now)
        guard asked != nil || !fields.isEmpty else { return }
        let limit = limits[key] ?? self.limit
        // The key may have gone while the call was out (many other hosts called meanwhile): what the server says now
        // is kept all the same.
        let paused = buckets.withLock { buckets -> Duration? in
            buckets.withValue(for: key, now: now, default: TokenBucket(limit: limit, now: now)) { bucket in
                let quotaPause = bucket.learn(fields, now: now)
                if let asked { bucket.pause(until: now + asked.seconds) }
                return [asked, quotaPause].compactMap { $0 }.max()
            }
        }
        if let paused {
            request.events?.report(.capability(ResilienceEvent.rateLimitPaused(key: key, duration: paused)))
        }
    }
}

extension RateLimitInterceptor {
    /// Rank 4 of the resilience order: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 4, list: .either, name: "RateLimitInterceptor")
    }
}
