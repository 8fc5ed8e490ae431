#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The limits a call's exchanges run within, as ``DeadlineInterceptor`` sets them for the stages after it: the chain
/// hands the transport what is left of them, and each waiting stage checks its wait against them.
struct ExchangeDeadline: Sendable {
    /// When the call must end.
    let deadline: Date?
    /// How long each attempt may take.
    let attemptTimeout: Duration?
    /// The time now, on the clock the deadline was set by (a `VirtualClock` in tests).
    let now: @Sendable () -> Date

    /// The limit that applies to an exchange of `request` starting now, and which of them it is (`nil`: the
    /// request's own timeout, shorter than both). Throws when the deadline has passed.
    func timeout(for request: HTTPRequest) throws(RestingError) -> (Duration?, DeadlineExceeded.Limit?) {
        var timeout = request.timeout
        var binding: DeadlineExceeded.Limit?
        if let attemptTimeout, timeout.map({ attemptTimeout < $0 }) ?? true {
            (timeout, binding) = (attemptTimeout, .attempt)
        }
        if let left = timeLeft {
            guard left > .zero else { throw .deadlineExceeded(DeadlineExceeded(limit: .call, stage: .exchange)) }
            if timeout.map({ left < $0 }) ?? true { (timeout, binding) = (left, .call) }
        }
        return (timeout, binding)
    }

    /// The time until the deadline, to the millisecond (a `Date` holds no finer, and no transport times finer).
    var timeLeft: Duration? {
        deadline.map { .milliseconds(Int64(($0.timeIntervalSince(now()) * 1000).rounded())) }
    }

    /// Whether a wait of `duration` from now would end after the deadline.
    func cannotWait(_ duration: Duration) -> Bool {
        guard let deadline else { return false }
        return now() + duration.seconds >= deadline
    }
}

enum ExchangeDeadlineKey: RequestAttributeKey {
    static let defaultValue: ExchangeDeadline? = nil
}

extension HTTPRequest {
    /// The limits ``DeadlineInterceptor`` set for this request's call, if it did.
    var exchangeDeadline: ExchangeDeadline? {
        get { attributes[ExchangeDeadlineKey.self] }
        set { attributes[ExchangeDeadlineKey.self] = newValue }
    }
}
