#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A reading of the system's monotonic clock, in nanoseconds: the time that code running in every transfer
/// callback keeps and compares.
///
/// `ContinuousClock.Instant` would do, but the standard library may change its layout, so every copy,
/// subtraction and comparison of one goes through the runtime's value witnesses and metadata — in the
/// progress callback that cost more than the callback's own work. This one is a plain integer.
///
/// ```swift
/// let started = MonotonicInstant.now
/// if MonotonicInstant.now - started >= .seconds(30) { giveUp() }
/// ```
package struct MonotonicInstant: Comparable, Sendable {
    /// Nanoseconds since an arbitrary point fixed at boot.
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The clock's current reading.
    package static var now: MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// The time from `start` to `end`.
    package static func - (end: MonotonicInstant, start: MonotonicInstant) -> Duration {
        .nanoseconds(end.nanoseconds - start.nanoseconds)
    }

    /// `duration` later (earlier when negative); saturates rather than overflow.
    package static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (sum, overflowed) = instant.nanoseconds.addingReportingOverflow(duration.wholeNanoseconds)
        return MonotonicInstant(nanoseconds: overflowed ? (duration < .zero ? .min : .max) : sum)
    }

    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
