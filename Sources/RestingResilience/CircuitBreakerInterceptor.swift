import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fails calls at once while an origin (or another key) is failing, instead of spending every caller's time and
/// the origin's capacity on it; lets a few probes through after a while, and goes back to normal when they pass.
///
/// - **Closed** (normal): each call's outcome enters a window — the last `n` calls, or the last stretch of time.
///   Once the window holds ``Policy/minimumCalls`` and their failure rate reaches ``Policy/failureRateThreshold``,
///   the breaker opens.
/// - **Open**: calls fail with ``ResilienceError/circuitOpen(key:retryAfter:)`` without going further down the
///   chain — no transport, no concurrency slot, no retry when this link is outside them — for
///   ``Policy/openDuration``.
/// - **Half-open**: up to ``Policy/halfOpenProbes`` calls go through; a failure opens the breaker again, that
///   many successes close it. Other calls fail fast meanwhile.
///
/// A failure is a transport failure, a timeout, or a status among ``Policy/failingStatuses`` (5xx); a 4xx is the
/// caller's fault and a success for the origin; a cancelled call counts for nothing. One breaker per
/// ``RestingCore/RequestAttributes/resilienceKey`` (by default the origin), shared by every call of the client. Put it before
/// the ``/RestingCore/RetryInterceptor`` so that an open breaker stops a call before its first attempt and the window sees a
/// call's final outcome (the Resilience article shows the whole order).
///
/// ```swift
/// let breaker = CircuitBreakerInterceptor(policy: .init(window: .count(50), openDuration: .seconds(10)))
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [breaker, RetryInterceptor()])
/// ```
public final class CircuitBreakerInterceptor: PlacedInterceptor {
    /// When a breaker opens, how long it stays open, and what counts as a failure.
    public struct Policy: Sendable {
        /// The outcomes a failure rate is computed over.
        public enum Window: Sendable, Equatable {
            /// The last `n` calls.
            case count(Int)
            /// The calls that ended in the last `span` (counted in tenths of it).
            case time(Duration)
        }

        /// The outcomes the failure rate is computed over. Default: the last 20 calls.
        public var window = Window.count(20)
        /// The fewest calls in the window before the breaker may open, so that two failures of a quiet client do
        /// not open it. Default 10.
        public var minimumCalls = 10
        /// The share of failed calls in the window (0…1) that opens the breaker. Default 0.5.
        public var failureRateThreshold = 0.5
        /// How long an open breaker fails calls before it lets probes through. Default 30 s.
        public var openDuration: Duration = .seconds(30)
        /// The probes a half-open breaker lets through; that many successes close it. Default 3.
        public var halfOpenProbes = 3
        /// The statuses that count as failures. Default: 500–599.
        public var failingStatuses = Set(500...599)
        /// The transport failures that count as failures; `nil`, every one. Default `nil`.
        public var failingTransportErrors: Set<TransportError.Kind>? = nil

        /// A policy with the defaults above, changed where given.
        public init(
            window: Window = .count(20), minimumCalls: Int = 10, failureRateThreshold: Double = 0.5,
            openDuration: Duration = .seconds(30), halfOpenProbes: Int = 3
        ) {
            self.window = window
            self.minimumCalls = minimumCalls
            self.failureRateThreshold = failureRateThreshold
            self.openDuration = openDuration
            self.halfOpenProbes = halfOpenProbes
        }

        /// How `result` counts for its breaker.
        func outcome(of result: Result<HTTPDataResponse, any Error>) -> CircuitBreaker.Outcome {
            switch result {
            case .success(let response): return failingStatuses.contains(response.status) ? .failure : .success
            case .failure(let error as RestingError):
                switch error {
                case .httpError(let error), .validationFailed(let error, _):
                    return failingStatuses.contains(error.status) ? .failure : .success
                case .transportFailed(let failure):
                    return failingTransportErrors?.contains(failure.kind) ?? true ? .failure : .ignored
                case .deadlineExceeded(let exceeded) where exceeded.stage == .exchange: return .failure
                default: return .ignored
                }
            case .failure: return .ignored
            }
        }
    }

    /// When breakers open and close, and what counts as a failure.
    public let policy: Policy
    /// The policies of particular keys, in place of ``policy``.
    public let policies: [String: Policy]
    private let clock: any InterceptorClock
    private let breakers: Locked<BoundedMap<String, CircuitBreaker>>

    /// Breakers following `policy` (or their own in `policies`), one per key, timed by `clock` (a `VirtualClock` in
    /// tests).
    public init(
        policy: Policy = Policy(), policies: [String: Policy] = [:], clock: any InterceptorClock = SystemClock()
    ) {
        self.policy = policy
        self.policies = policies
        self.clock = clock
        breakers = Locked(BoundedMap { breaker, now in breaker.holdsState(at: now) })
    }

    /// Where the breaker for `key` stands now (`closed` for a key no call has used).
    ///
    /// ```swift
    /// if breaker.state(for: "https://api.example.com:443") == .open { showOfflineBanner() }
    /// ```
    public func state(for key: String) -> CircuitBreakerState {
        let now = clock.now
        return breakers.withLock { $0[key]?.state(now: now) ?? .closed }
    }

    /// How many keys it keeps a breaker for (bounded: ``BoundedMap``).
    package var keyCount: Int { breakers.withLock { $0.count } }

    /// Fails the call at once while its key's breaker is open; otherwise passes it on and counts its outcome.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        // Admitted and counted in functions of their own: this frame, held while the call is out, keeps the key and
        // the admission, not the policy and the working besides (816 bytes of frame, which took a call's task a
        // slab of its own).
        let admitted = try admit(request)
        let result = await Result { try await execution(request) }
        count(result, of: admitted, request)
        return try result.get()
    }

    /// A call let through: the key whose breaker let it, and as what.
    private struct Admitted {
        let key: String
        let admission: CircuitBreaker.Admission
    }

    /// The policy of `key`'s breaker.
    private func policy(for key: String) -> Policy { policies.isEmpty ? policy : policies[key] ?? policy }

    /// Lets `request` through, or fails it when its key's breaker is open.
    @inline(never)
    private func admit(_ request: HTTPRequest) throws(ResilienceError) -> Admitted {
        let key = request.resilienceKey
        let policy = policy(for: key)
        let now = clock.now
        let (admission, opened) = breakers.withLock { breakers in
            breakers.withValue(for: key, now: now, default: CircuitBreaker(policy: policy)) {
                $0.admit(now: now, policy: policy)
            }
        }
        report(opened, key, request)
        if case .rejected(let retryAfter) = admission { throw .circuitOpen(key: key, retryAfter: retryAfter) }
        return Admitted(key: key, admission: admission)
    }

    /// Counts the outcome of a call `admitted` let through.
    @inline(never)
    private func count(_ result: Result<HTTPDataResponse, any Error>, of admitted: Admitted, _ request: HTTPRequest) {
        let policy = policy(for: admitted.key)
        let (outcome, end) = (policy.outcome(of: result), clock.now)
        let moved = breakers.withLock { breakers in
            breakers.update(admitted.key, now: end) {
                $0.record(outcome, of: admitted.admission, now: end, policy: policy)
            } ?? nil
        }
        report(moved, admitted.key, request)
    }

    private func report(_ transition: CircuitBreaker.Transition?, _ key: String, _ request: HTTPRequest) {
        guard let transition else { return }
        request.events?.report(
            .capability(ResilienceEvent.circuitBreakerChanged(key: key, from: transition.from, to: transition.to)))
    }
}

extension CircuitBreakerInterceptor {
    /// Rank 1 of the resilience order: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 1, list: .either, name: "CircuitBreakerInterceptor")
    }
}
