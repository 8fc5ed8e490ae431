import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One key's token bucket, as a value: the client's own limit, and the pauses and quota the server announced.
/// Tokens may go below zero — each waiting call has reserved the token it waits for — so that waiting calls are
/// served in the order they came, without a queue.
struct TokenBucket: Equatable {
    /// What a call gets from the bucket.
    enum Reservation: Equatable {
        /// A token, now or after `wait`.
        case granted(wait: Duration)
        /// No token within the bounds: the next is due after `retryAfter`.
        case refused(retryAfter: Duration)
    }

    private(set) var tokens: Double
    private var updated: Date
    /// Until when the server asked the client to send nothing.
    private(set) var pausedUntil: Date?
    /// What the server last said is left of its quota, and when the quota resets.
    private var serverQuota: (remaining: Int, reset: Date)?
    /// The server's own policy, when it is stricter than the client's.
    private var serverLimit: RateLimitInterceptor.Limit?
    /// Calls holding a reservation with a wait.
    private(set) var waiting = 0
    /// When the bucket is full again, its spent tokens back.
    private var fullAt: Date

    static func == (lhs: TokenBucket, rhs: TokenBucket) -> Bool {
        lhs.tokens == rhs.tokens && lhs.pausedUntil == rhs.pausedUntil && lhs.waiting == rhs.waiting
    }

    init(limit: RateLimitInterceptor.Limit, now: Date) {
        tokens = Double(limit.burst)
        updated = now
        fullAt = now
    }

    /// Whether the bucket holds more than a new one would at `now`: spent tokens, a pause or a quota the server
    /// announced, calls waiting.
    func holdsState(at now: Date) -> Bool {
        waiting > 0 || fullAt > now || pausedUntil.map { $0 > now } == true
            || serverQuota.map { $0.reset > now } == true
    }

    /// Reserves a token at `now`, unless its wait would pass `maximumWait` or `maximumWaiting` calls already wait.
    mutating func reserve(
        now: Date, limit: RateLimitInterceptor.Limit, maximumWait: Duration, maximumWaiting: Int
    ) -> Reservation {
        let limit = effective(limit)
        refill(now: now, limit: limit)
        var start = max(now, pausedUntil ?? now)
        var takesQuota = false
        if let quota = serverQuota {
            if now >= quota.reset {
                serverQuota = nil
            } else if quota.remaining <= 0 {
                start = max(start, quota.reset)
            } else {
                takesQuota = true
            }
        }
        let rate = limit.ratePerSecond
        let wait = max(start.timeIntervalSince(now), max(0, 1 - tokens) / rate)
        // A token at hand, the common case, makes no `Duration` of a `Double` (128-bit arithmetic). A wait is what
        // the `Duration` says: one under an attosecond is none, and counts no waiter that no wait would end.
        let duration = wait > 0 ? Duration.seconds(wait) : .zero
        let waits = duration > .zero
        if waits, duration > maximumWait || waiting >= maximumWaiting {
            return .refused(retryAfter: duration)
        }
        tokens -= 1
        fullAt = now + (Double(limit.burst) - tokens) / rate
        if takesQuota, let quota = serverQuota { serverQuota = (quota.remaining - 1, quota.reset) }
        if waits { waiting += 1 }
        return .granted(wait: duration)
    }

    /// A call that waited for its token has it.
    mutating func endWait() { waiting -= 1 }

    /// A call that waited gave up (cancelled, or out of time): its token goes back.
    mutating func cancelWait() {
        waiting -= 1
        tokens += 1
    }

    /// Sends nothing until `until`: the server asked (`Retry-After`, a quota with nothing left).
    mutating func pause(until: Date) {
        pausedUntil = max(pausedUntil ?? until, until)
    }

    /// Takes in what a response said of the quota, at `now`; returns how long the key is now paused, if it is.
    mutating func learn(_ fields: RateLimitFields, now: Date) -> Duration? {
        if let policy = fields.policy {
            serverLimit = RateLimitInterceptor.Limit(requests: policy.requests, per: policy.window)
        }
        guard let (remaining, reset) = fields.remaining else { return nil }
        let resetDate = now + reset.seconds
        guard remaining > 0 else {
            pause(until: resetDate)
            return reset
        }
        serverQuota = (remaining, resetDate)
        return nil
    }

    /// The client's limit, or the server's where the server's is stricter.
    private func effective(_ limit: RateLimitInterceptor.Limit) -> RateLimitInterceptor.Limit {
        guard let serverLimit, serverLimit.ratePerSecond < limit.ratePerSecond else { return limit }
        return RateLimitInterceptor.Limit(
            requests: serverLimit.requests, per: serverLimit.interval, burst: min(limit.burst, serverLimit.burst))
    }

    private mutating func refill(now: Date, limit: RateLimitInterceptor.Limit) {
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(Double(limit.burst), tokens + elapsed * limit.ratePerSecond)
        updated = now
    }
}
