import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A clock for tests: `sleep` returns at once, advancing ``now`` and recording the duration.
///
/// ```swift
/// let clock = VirtualClock()
/// let retry = RetryInterceptor(clock: clock)
/// // … run requests, then:
/// #expect(clock.sleeps == [.milliseconds(200)])
/// ```
public final class VirtualClock: InterceptorClock {
    private let state: Locked<(now: Date, sleeps: [Duration])>

    /// A clock standing at `now`, which moves only when told.
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked((now, []))
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.now += duration.seconds
        }
    }

    public var now: Date { state.withLock { $0.now } }

    /// Moves ``now`` on by `duration` without a sleep: time passing between calls (a breaker's open spell, a bucket
    /// refilling).
    public func advance(by duration: Duration) {
        state.withLock { $0.now += duration.seconds }
    }

    /// Every duration slept, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }
}
