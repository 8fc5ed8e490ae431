#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A duration a server chose — in a header, an event stream's field, a cached response's directives — as the wait or
/// lifetime it becomes: read without arithmetic that can overflow, never negative, and never longer than the
/// ceiling of its ``Use``. Every such duration in RestingKit goes through here, so that one value from a buggy or
/// hostile server (`Retry-After: 3000000000`, a reset in the year 2286) costs at most that ceiling, never a pause of
/// decades; the Hardening article lists the uses and their ceilings.
package enum ServerDuration {
    /// What a server's duration is for, each with its ceiling.
    package enum Use: CaseIterable, Sendable {
        /// `Retry-After` (RFC 9110 §10.2.3), as a retry's delay, a rate limit's pause or a poll's wait: 1 hour.
        case retryAfter
        /// When a quota resets (`RateLimit`, `RateLimit-Reset`, `X-RateLimit-Reset`): 1 hour, the longest window
        /// public APIs give a quota (GitHub's, for one).
        case rateLimitReset
        /// An API's own back-off header (`Backoff: 60`, Kinto's): 1 hour.
        case backoff
        /// An event stream's `retry:` field: 1 hour (the stream's `ServerSentEvents.Reconnection` caps it lower).
        case eventStreamRetry
        /// A cached response's freshness lifetime and age (`max-age`, `Expires`, `Age`, `stale-if-error`): 1 year, as
        /// RFC 9111 §5.3 advises for `Expires`.
        case cacheLifetime
        /// A cookie's lifetime (`Max-Age`, `Expires`): 400 days, as RFC 6265bis caps it.
        case cookieLifetime
        /// How long an alternative service holds (`Alt-Svc`'s `ma`, RFC 7838): 1 day, its default.
        case alternativeService

        /// The longest duration a server gets for this use.
        package var ceiling: Duration {
            switch self {
            case .retryAfter, .rateLimitReset, .backoff, .eventStreamRetry: .seconds(3600)
            case .alternativeService: .seconds(24 * 3600)
            case .cacheLifetime: .seconds(365 * 24 * 3600)
            case .cookieLifetime: .seconds(400 * 24 * 3600)
            }
        }
    }

    /// `duration`, clamped between zero and `use`'s ceiling.
    package static func clamped(_ duration: Duration, for use: Use) -> Duration {
        min(max(duration, .zero), use.ceiling)
    }

    /// `seconds` (any number, a server's or computed from one), clamped for `use` and rounded up to the next whole
    /// millisecond; a value that is not a number is zero.
    package static func clamped(seconds: Double, for use: Use) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        guard seconds < use.ceiling.seconds else { return use.ceiling }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// A number of `unit`s written as digits only (no sign, fraction or exponent, as delta-seconds and
    /// `Retry-After` are), clamped for `use`; `nil` when the text is not such a number. Any count of digits is read.
    package static func parse<Digits: Collection<UInt8>>(
        digits: Digits, unit: Duration = .seconds(1), for use: Use
    ) -> Duration? {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let ceilingUnits = (use.ceiling / unit).rounded(.up)
        var value = 0.0
        for digit in digits {
            value = value * 10 + Double(digit - UInt8(ascii: "0"))
            if value > ceilingUnits { return use.ceiling }
        }
        return clamped(unit * value, for: use)
    }

    /// ``parse(digits:unit:for:)`` of a header's value, whitespace around it ignored.
    package static func parse(_ value: String, for use: Use) -> Duration? {
        parse(digits: value.trimmingWhitespace.utf8, for: use)
    }

    /// The time from `now` until `date`, clamped for `use` (zero for a date past).
    package static func until(_ date: Date, from now: Date, for use: Use) -> Duration {
        clamped(seconds: date.timeIntervalSince(now), for: use)
    }
}
