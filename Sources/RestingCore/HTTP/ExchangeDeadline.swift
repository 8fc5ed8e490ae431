#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The limits a call's exchanges run within, as `DeadlineInterceptor` sets them for the stages after it: the chain
/// hands the transport what is left of them, and each waiting stage checks its wait against them.
package struct ExchangeDeadline: Sendable {
    /// When the call must end.
    package let deadline: Date?
    /// How long each attempt may take.
    package let attemptTimeout: Duration?
    /// The clock the deadline was set by (a `VirtualClock` in tests).
    let clock: any InterceptorClock

    /// Limits of a call ending at `deadline`, each attempt lasting at most `attemptTimeout`, on `clock`.
    package init(deadline: Date?, attemptTimeout: Duration?, clock: any InterceptorClock) {
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.clock = clock
    }

    /// The timeout of an exchange of `request` starting now: the shortest of its own, the attempt's and the time
    /// left. Throws when the deadline has passed.
    func timeout(for request: HTTPRequest) throws(RestingError) -> Duration? {
        // An attempt given no time fails as its limit would, unsent: a transport would read a zero timeout as none
        // (libcurl) or round it up to something.
        if let attemptTimeout, attemptTimeout <= .zero {
            throw .deadlineExceeded(DeadlineExceeded(limit: .attempt, stage: .exchange))
        }
        return least(try timeLeftBeforeExchange(), least(attemptTimeout, request.timeout))
    }

    /// The limit a transport's timeout of an exchange under these limits was: the call's when its deadline has
    /// passed (or is within the 5 ms a transport's timer may be early by), the attempt's when it was shorter than the
    /// request's own `requestTimeout`; `nil` when the request's own timeout was.
    package func limitReached(requestTimeout: Duration?) -> DeadlineExceeded.Limit? {
        if let deadline, clock.now.addingTimeInterval(0.005) >= deadline { return .call }
        guard let attemptTimeout, requestTimeout.map({ attemptTimeout < $0 }) ?? true else { return nil }
        return .attempt
    }

    /// The time until the deadline, rounded up to the millisecond (a `Date` holds no finer, no transport times finer,
    /// and a timeout that ends a hair early would end an exchange the deadline allows).
    package var timeLeft: Duration? {
        deadline.map { deadline in
            // To the microsecond first: the float error of a `Date` must not round a whole millisecond up.
            let microseconds = (deadline.timeIntervalSince(clock.now) * 1_000_000).rounded()
            return .milliseconds(Int64((microseconds / 1000).rounded(.up)))
        }
    }

    /// Whether a wait of `duration` from now would end after the deadline.
    package func cannotWait(_ duration: Duration) -> Bool {
        guard let deadline else { return false }
        return clock.now + duration.seconds >= deadline
    }

    private func timeLeftBeforeExchange() throws(RestingError) -> Duration? {
        guard let left = timeLeft else { return nil }
        guard left > .zero else { throw .deadlineExceeded(DeadlineExceeded(limit: .call, stage: .exchange)) }
        return left
    }
}
