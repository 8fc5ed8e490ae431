import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Gives a call a deadline that spans all it does — every attempt, redirect, hedge and wait — and each attempt a
/// timeout of its own, so that a caller waits no longer than it can afford however the call goes.
///
/// - The call's deadline is the earliest of ``callTimeout`` (or the request's ``RestingCore/RequestAttributes/callTimeout``)
///   from now, the ``CallDeadline/current`` of the task that made the call (a server's own request deadline), and
///   a deadline an outer interceptor set.
/// - Every exchange is sent with the time left (and at most the attempt's timeout) as its transport timeout, so a
///   transport gives up when the call must. ``/RestingCore/RetryInterceptor``'s backoff and ``RateLimitInterceptor``'s bucket,
///   whose waits are known ahead, fail at once when the wait would pass the deadline instead of waiting in vain;
///   ``ConcurrencyLimitInterceptor``'s queue gives up when the deadline passes.
/// - A call that runs out of time fails with ``/RestingCore/RestingError/deadlineExceeded(_:)``, saying which limit ran out —
///   the call's, or the attempt's — and in which stage. An attempt's timeout is retried like any timeout when a
///   ``/RestingCore/RetryInterceptor`` is outside it; the call's is final.
///
/// Put it first among the application interceptors, so that everything after it counts against the deadline.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: baseUrl, httpClient: transport,
///     interceptors: [DeadlineInterceptor(callTimeout: .seconds(2), attemptTimeout: .milliseconds(500)),
///                    RetryInterceptor()])
/// ```
public struct DeadlineInterceptor: PlacedInterceptor {
    /// The longest a call may take, all attempts and waits included; `nil`, no limit but the task's
    /// ``CallDeadline/current``.
    public let callTimeout: Duration?
    /// The longest each attempt may take; `nil`, the transport's own timeout.
    public let attemptTimeout: Duration?
    private let clock: any InterceptorClock
    /// ``callTimeout`` in seconds, worked out once: a `Duration`'s divides a 128-bit count.
    private let callTimeoutSeconds: Double?

    /// An interceptor ending calls after `callTimeout` and attempts after `attemptTimeout`, timed by `clock`.
    public init(
        callTimeout: Duration? = nil, attemptTimeout: Duration? = nil, clock: any InterceptorClock = SystemClock()
    ) {
        self.callTimeout = callTimeout
        callTimeoutSeconds = callTimeout?.seconds
        self.attemptTimeout = attemptTimeout
        self.clock = clock
    }

    /// Sets the call's deadline and attempt timeout for the stages after it, or fails a call whose deadline has
    /// already passed.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        // Worked out in a function of its own: this frame, held while the call is out, keeps two references, not the
        // limits' fields and the working besides.
        let limited = try limited(request)
        do {
            return try await execution(limited)
        } catch {
            throw Self.attributed(error, limited: limited, request: request)
        }
    }

    /// `error`, or, when it is the transport's timeout, the limit that cut the exchange: the chain handed the
    /// transport the shortest of `limited`'s limits and the request's own timeout. Out of line, so that the frame
    /// held while the call is out does not keep room for the matching.
    @inline(never)
    private static func attributed(_ error: any Error, limited: HTTPRequest, request: HTTPRequest) -> any Error {
        guard case RestingError.transportFailed(let failure) = error, failure.kind == .timedOut,
            let limit = limited.exchangeDeadline?.limitReached(requestTimeout: request.timeout)
        else { return error }
        return RestingError.deadlineExceeded(DeadlineExceeded(limit: limit, stage: .exchange))
    }

    /// `request` with its call's limits, which the end of the chain turns into its exchange's timeout — there, not
    /// here: a stage between reads `request.timeout` as the request's own (a deadline inside this one, to tell which
    /// limit cut an exchange). Throws when the call's deadline has passed.
    @inline(never)
    private func limited(_ request: HTTPRequest) throws(RestingError) -> HTTPRequest {
        let now = clock.now
        let outer = request.exchangeDeadline
        let own = (request.attributes.callTimeout?.seconds ?? callTimeoutSeconds).map { now + $0 }
        let deadline = least(least(own, CallDeadline.current), outer?.deadline)
        if let deadline, deadline <= now { throw .deadlineExceeded(DeadlineExceeded(limit: .call, stage: .start)) }
        let limits = ExchangeDeadline(
            deadline: deadline,
            attemptTimeout: request.attributes.attemptTimeout ?? attemptTimeout ?? outer?.attemptTimeout,
            clock: clock)
        var limited = request
        limited.exchangeDeadline = limits
        return limited
    }
}

extension DeadlineInterceptor {
    /// Rank 0 of the resilience order, in `interceptors`: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 0, list: .application, name: "DeadlineInterceptor")
    }
}
