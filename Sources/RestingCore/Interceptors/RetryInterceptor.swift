/// Sends a request again when it failed in a way that may pass on a second try.
///
/// - **What is retried:** transport failures that are safe to repeat (connect, DNS, timeout, reset) and the
///   statuses 408, 429, 500, 502, 503 and 504 — for idempotent methods only, unless the policy says otherwise.
/// - **When:** exponential backoff with full jitter — a random delay between 0 and
///   `min(maximumDelay, baseDelay × 2^(attempt − 1))` — or the server's `Retry-After` (seconds or HTTP date)
///   when it sends one. A `Retry-After` beyond `maximumDelay`, or of an hour or more, is not waited for: the
///   response is returned.
/// - **How often:** at most `maximumAttempts` sends per call (a request's ``RequestAttributes/maximumAttempts``
///   overrides it), and only while the shared ``RetryBudget`` allows.
/// - The body is read again from the start for every attempt.
///
/// ```swift
/// let budget = RetryBudget(ratio: 0.2, reserve: 10)
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [RetryInterceptor(budget: budget), LoggingInterceptor()])
/// ```
public struct RetryInterceptor: PlacedInterceptor {
    /// When and how often to retry.
    public struct Policy: Sendable {
        /// Sends per call, the first included.
        public var maximumAttempts = 3
        /// The backoff's unit: the delay before attempt `n + 1` is random between 0 and `baseDelay × 2^(n − 1)`,
        /// capped at `maximumDelay`.
        public var baseDelay: Duration = .milliseconds(200)
        /// No wait is longer, computed or asked for with `Retry-After`.
        public var maximumDelay: Duration = .seconds(10)
        /// Response statuses worth another attempt.
        public var retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
        /// Transport failures worth another attempt.
        public var retryableFailures: Set<TransportError.Kind> = [
            .connectionFailed, .dnsFailed, .timedOut, .connectionReset,
        ]
        /// Retry `POST`, `PATCH` and other methods that may not be safe to repeat.
        public var retriesNonIdempotentMethods = false

        /// The defaults above.
        public init() {}
    }

    /// When and how often this interceptor retries.
    public var policy: Policy
    /// The budget its retries draw from; share one between interceptors to cap them together.
    public let budget: RetryBudget
    private let clock: any InterceptorClock
    private let randomFraction: @Sendable () -> Double

    /// An interceptor retrying what `policy` allows.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry.
    ///   - budget: share one budget between the interceptors of a client (or of several clients of one API).
    ///   - clock: What the delays are waited on (a `VirtualClock`, from RestingTesting, in tests).
    ///
    /// Every retry it schedules, and every one it declines, is a ``CallEvent`` of the call
    /// (``CallEvent/Kind/retryScheduled(attempt:delay:cause:)``): listen with an ``EventListenerFactory``.
    public init(
        policy: Policy = Policy(), budget: RetryBudget = RetryBudget(), clock: any InterceptorClock = SystemClock()
    ) {
        self.init(policy: policy, budget: budget, clock: clock) { Double.random(in: 0...1) }
    }

    init(
        policy: Policy, budget: RetryBudget, clock: any InterceptorClock,
        randomFraction: @escaping @Sendable () -> Double
    ) {
        self.policy = policy
        self.budget = budget
        self.clock = clock
        self.randomFraction = randomFraction
    }

    /// Passes the request on, and again after a delay while the outcome is retryable, the attempts last and the budget
    /// allows.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        var sent = request
        budget.recordRequest(&sent)
        var attempt = 1
        while true {
            let outcome = await Result { [sent] in try await execution(sent) }
            // Decided in a function of its own: this frame, held while each attempt is out, keeps the request and
            // the attempt's number, not the room for the decision (1,744 bytes of frame when it was here).
            guard let delay = try wait(after: outcome, attempt: attempt, request: request) else {
                return try outcome.get()
            }
            attempt += 1
            sent = Self.numbered(sent, attempt: attempt)
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw RestingError.cancelled
            }
        }
    }

    /// How long to wait before attempt `attempt + 1`, having reported it; `nil` when `outcome` is the call's (not
    /// retryable, attempts or budget spent: reported too). Throws when the call's deadline cannot wait that long.
    @inline(never)
    private func wait(after outcome: Result<HTTPDataResponse, any Error>, attempt: Int, request: HTTPRequest)
        throws(RestingError) -> Duration?
    {
        guard attempt < request.attributes.maximumAttempts ?? policy.maximumAttempts else {
            if let events = request.events, delay(after: outcome, attempt: attempt, request: request) != nil {
                events.report(.retryDeclined(attempt: attempt + 1, reason: .attemptsExhausted))
            }
            return nil
        }
        guard let delay = delay(after: outcome, attempt: attempt, request: request) else { return nil }
        if let limits = request.exchangeDeadline, limits.cannotWait(delay) {
            request.events?.report(.retryDeclined(attempt: attempt + 1, reason: .deadline))
            // Already past it: the exchange spent the call's time (its transport timeout was the time left).
            let stage: DeadlineExceeded.Stage = limits.cannotWait(.zero) ? .exchange : .retryWait
            throw .deadlineExceeded(DeadlineExceeded(limit: .call, stage: stage))
        }
        guard budget.withdraw() else {
            request.events?.report(.retryDeclined(attempt: attempt + 1, reason: .budgetExhausted))
            return nil
        }
        request.events?.report(.retryScheduled(attempt: attempt + 1, delay: delay, cause: Self.cause(outcome)))
        return delay
    }

    /// `request` as attempt `attempt` sends it.
    @inline(never)
    private static func numbered(_ request: HTTPRequest, attempt: Int) -> HTTPRequest {
        var numbered = request
        numbered.attributes.attempt = attempt
        return numbered
    }

    /// How long to wait before the next attempt, or `nil` when this outcome is not to be retried.
    func delay(after outcome: Result<HTTPDataResponse, any Error>, attempt: Int, request: HTTPRequest) -> Duration? {
        guard request.isIdempotent || policy.retriesNonIdempotentMethods else { return nil }
        switch outcome {
        case .failure(RestingError.transportFailed(let failure)) where policy.retryableFailures.contains(failure.kind):
            return backoff(attempt: attempt)
        case .failure(RestingError.deadlineExceeded(let exceeded))
        where exceeded.limit == .attempt && policy.retryableFailures.contains(.timedOut):
            // An attempt's own timeout (`DeadlineInterceptor`) is a timeout like the transport's.
            return backoff(attempt: attempt)
        default: break
        }
        // A response, or the error an interceptor inside this one (validation, say) made of it.
        guard let (status, headers) = outcome.responseHead, policy.retryableStatuses.contains(status) else {
            return nil
        }
        guard let header = headers["Retry-After"], let asked = RetryAfter.delay(header, now: clock.now) else {
            return backoff(attempt: attempt)
        }
        // A server asking for more than the policy allows, or for an hour or more (the ceiling of any server's
        // Retry-After), says: not now.
        return asked <= policy.maximumDelay && asked < ServerDuration.Use.retryAfter.ceiling ? asked : nil
    }

    /// What made `outcome` worth another attempt.
    private static func cause(_ outcome: Result<HTTPDataResponse, any Error>) -> CallEvent.RetryCause {
        switch (outcome.responseHead, outcome) {
        case (let head?, _): .status(head.status)
        case (nil, .failure(let error)): .failure(errorType: RestingError.errorType(of: error))
        case (nil, .success(let response)): .status(response.status)
        }
    }

    /// Full jitter: uniformly random between 0 and the capped exponential delay.
    func backoff(attempt: Int) -> Duration {
        // In seconds as a Double: `Duration` arithmetic traps on overflow, and a policy may be any size.
        let exponential = policy.baseDelay.seconds * Double(1 << min(max(attempt - 1, 0), 30))
        let capped = min(policy.maximumDelay.seconds, exponential, Duration.effectivelyForever.seconds)
        return .seconds(max(0, capped) * randomFraction())
    }
}

extension RetryInterceptor {
    /// Rank 2 of the resilience order: see ``InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 2, list: .either, name: "RetryInterceptor")
    }
}
