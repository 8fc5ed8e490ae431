import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One key's circuit breaker, as a value: what it admits and how outcomes move it. The interceptor keeps one per
/// key under its lock; tests drive it with dates alone.
struct CircuitBreaker: Equatable {
    enum Phase: Equatable {
        case closed(OutcomeWindow)
        case open(until: Date)
        /// Probes admitted and not yet ended, and probes that succeeded.
        case halfOpen(inFlight: Int, succeeded: Int)
    }

    /// What the breaker does with a call.
    enum Admission: Equatable {
        /// Through, its outcome counted in the window.
        case call
        /// Through as a probe of a half-open breaker, in its `round`th half-open phase.
        case probe(round: Int)
        /// Failed at once: the breaker lets a probe through after `retryAfter`.
        case rejected(retryAfter: Duration)
    }

    /// How a call's outcome counts.
    enum Outcome: Equatable {
        case success, failure
        /// Neither: cancelled, or a failure the policy does not count.
        case ignored
    }

    struct Transition: Equatable {
        let from: CircuitBreakerState
        let to: CircuitBreakerState
    }

    private(set) var phase: Phase
    /// How many times the breaker has been half-open: a probe's outcome counts only in its own round.
    private var round = 0

    init(policy: CircuitBreakerInterceptor.Policy) { phase = .closed(OutcomeWindow(policy.window)) }

    /// Whether the breaker holds more than a new one would at `now`: it is open or half-open, or has failures in its
    /// window.
    func holdsState(at now: Date) -> Bool {
        guard case .closed(let window) = phase else { return true }
        return window.counts(now: now).failures > 0
    }

    /// The state at `now`: an open breaker whose wait is over is half-open.
    func state(now: Date) -> CircuitBreakerState {
        switch phase {
        case .closed: .closed
        case .open(let until): now >= until ? .halfOpen : .open
        case .halfOpen: .halfOpen
        }
    }

    /// Admits a call at `now`, or rejects it; an open breaker whose wait is over becomes half-open.
    mutating func admit(now: Date, policy: CircuitBreakerInterceptor.Policy) -> (Admission, Transition?) {
        switch phase {
        case .closed:
            return (.call, nil)
        case .open(let until) where now < until:
            return (.rejected(retryAfter: .seconds(until.timeIntervalSince(now))), nil)
        case .open:
            phase = .halfOpen(inFlight: 1, succeeded: 0)
            round += 1
            return (.probe(round: round), Transition(from: .open, to: .halfOpen))
        case .halfOpen(let inFlight, let succeeded):
            guard inFlight + succeeded < max(1, policy.halfOpenProbes) else {
                // Every probe is out: the next goes once one of them has ended.
                return (.rejected(retryAfter: .zero), nil)
            }
            phase = .halfOpen(inFlight: inFlight + 1, succeeded: succeeded)
            return (.probe(round: round), nil)
        }
    }

    /// Counts the outcome of a call admitted as `admission`, at `now`.
    mutating func record(
        _ outcome: Outcome, of admission: Admission, now: Date, policy: CircuitBreakerInterceptor.Policy
    ) -> Transition? {
        // Not in the `switch` below: a tuple of the phase would hold the window while it is written, and every
        // call would then copy it.
        if case .call = admission, case .closed(var window) = phase {
            guard outcome != .ignored else { return nil }
            // The phase lets go of the window while it is written, so that the write copies nothing.
            phase = .halfOpen(inFlight: 0, succeeded: 0)
            window.record(failure: outcome == .failure, now: now)
            let (calls, failures) = window.counts(now: now)
            if calls >= max(1, policy.minimumCalls), Double(failures) >= policy.failureRateThreshold * Double(calls) {
                phase = .open(until: now + policy.openDuration.seconds)
                return Transition(from: .closed, to: .open)
            }
            phase = .closed(window)
            return nil
        }
        switch (phase, admission) {
        case (.halfOpen(let inFlight, let succeeded), .probe(let probeRound)) where probeRound == round:
            switch outcome {
            case .ignored:
                phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded)
                return nil
            case .failure:
                phase = .open(until: now + policy.openDuration.seconds)
                return Transition(from: .halfOpen, to: .open)
            case .success where succeeded + 1 >= max(1, policy.halfOpenProbes):
                phase = .closed(OutcomeWindow(policy.window))
                return Transition(from: .halfOpen, to: .closed)
            case .success:
                phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded + 1)
                return nil
            }
        default:
            // A call admitted under an earlier phase (a late outcome of a closed breaker that has since opened, a
            // probe of a breaker that a failure reopened): the current phase was decided without it.
            return nil
        }
    }
}
