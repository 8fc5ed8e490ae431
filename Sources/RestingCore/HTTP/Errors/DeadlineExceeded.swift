/// Which limit of a `DeadlineInterceptor` ended a call, and where the call was when it did: what
/// ``RestingError/deadlineExceeded(_:)`` carries.
///
/// ```swift
/// catch .deadlineExceeded(let exceeded) where exceeded.limit == .call {
///     // the whole call ran out of time: answer the caller with what is cached
/// }
/// ```
public struct DeadlineExceeded: Sendable, Equatable, CustomStringConvertible {
    /// The limit that was reached.
    public enum Limit: String, Sendable, Equatable {
        /// The call's deadline, which spans every attempt, redirect, hedge and wait: the deadline interceptor's call
        /// limit, a request's `callTimeout`, or the deadline of the task that made the call (`CallDeadline.current`),
        /// whichever came first.
        case call
        /// One attempt's timeout, which the transport enforced.
        case attempt
    }

    /// Where the call was when its limit was reached.
    public enum Stage: String, Sendable, Equatable {
        /// Before the call could start: the deadline it inherited had already passed.
        case start
        /// An exchange with the server (its connection, request, or response head).
        case exchange
        /// Waiting for ``RetryInterceptor``'s next attempt.
        case retryWait
        /// Waiting for a token of `RateLimitInterceptor`.
        case rateLimitWait
        /// Waiting for a slot of `ConcurrencyLimitInterceptor`.
        case concurrencyWait
    }

    /// The limit that was reached.
    public let limit: Limit
    /// Where the call was.
    public let stage: Stage

    /// A deadline exceeded, as an interceptor or a test states it.
    public init(limit: Limit, stage: Stage) {
        self.limit = limit
        self.stage = stage
    }

    /// `the call's deadline passed during retryWait`.
    public var description: String {
        "\(limit == .call ? "the call's deadline" : "the attempt's timeout") passed during \(stage.rawValue)"
    }
}
