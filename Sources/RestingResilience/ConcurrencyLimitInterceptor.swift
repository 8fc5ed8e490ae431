import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bounds the calls in flight to each key (an origin by default), with a limit that is fixed or finds the backend's
/// capacity by itself: it rises while latency holds and falls when latency grows or calls fail, so that a client
/// neither under-uses a fast backend nor piles onto a slow one (Netflix's concurrency-limits is the model). A call
/// cancelled, or ended by an error that says nothing of the backend (what a circuit breaker ignores), does not move
/// it.
///
/// Calls over the limit wait in order of arrival — at most ``maximumQueued`` of them per key, for no longer than
/// their deadline (``DeadlineInterceptor``), cancellable — or are shed at once with
/// ``ResilienceError/loadShed(key:limit:)``. Unlike the client's ``/RestingCore/ConcurrencyMode`` limit, which every call takes
/// first, this one is a link of the chain: put it last among the application interceptors, so that a call an open
/// breaker or a rate limit stops never takes a slot, and a slot is held only while the request is in flight.
///
/// ```swift
/// let limit = ConcurrencyLimitInterceptor(.adaptive(.init(initialLimit: 10, maximumLimit: 100)))
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [CircuitBreakerInterceptor(), RetryInterceptor(), limit])
/// ```
public final class ConcurrencyLimitInterceptor: PlacedInterceptor {
    /// How the limit is set.
    public enum Limit: Sendable {
        /// Always this many calls per key.
        case fixed(Int)
        /// A limit that adapts, within the bounds and at the pace `settings` give.
        case adaptive(Adaptive = Adaptive())
    }

    /// How an adaptive limit moves.
    public struct Adaptive: Sendable, Equatable {
        /// Where the limit starts. Default 10.
        public var initialLimit: Int
        /// The lowest it falls. Default 1.
        public var minimumLimit: Int
        /// The highest it rises. Default 200.
        public var maximumLimit: Int
        /// The factor a drop multiplies the limit by. Default 0.9.
        public var backoffRatio: Double
        /// How many times the least recent latency a call may take before it counts as a drop. Default 2.
        public var latencyTolerance: Double

        /// Settings with the defaults above, changed where given.
        public init(
            initialLimit: Int = 10, minimumLimit: Int = 1, maximumLimit: Int = 200, backoffRatio: Double = 0.9,
            latencyTolerance: Double = 2
        ) {
            self.minimumLimit = max(1, minimumLimit)
            self.maximumLimit = max(self.minimumLimit, maximumLimit)
            self.initialLimit = min(max(initialLimit, self.minimumLimit), self.maximumLimit)
            self.backoffRatio = min(max(backoffRatio, 0.1), 1)
            self.latencyTolerance = max(1, latencyTolerance)
        }
    }

    /// A key's slots and, when it adapts, its limit.
    private struct Key: Sendable {
        let slots: CallLimiter
        var adaptive: AdaptiveLimit?
    }

    /// How the limit is set.
    public let limit: Limit
    /// The most calls that wait for a slot of one key; more are shed.
    public let maximumQueued: Int
    private let clock: any InterceptorClock
    private let keys: Locked<BoundedMap<String, Key>>
    /// What counts as a failed call: what counts for a circuit breaker by default.
    private let failures = CircuitBreakerInterceptor.Policy()

    /// A limit set as `limit` says, with at most `maximumQueued` calls waiting per key, a queued call's deadline
    /// timed by `clock` (a `VirtualClock` in tests).
    public init(_ limit: Limit = .adaptive(), maximumQueued: Int = 100, clock: any InterceptorClock = SystemClock()) {
        self.limit = limit
        self.maximumQueued = max(0, maximumQueued)
        self.clock = clock
        // A key with calls in flight or waiting keeps its slots: dropping them would admit past the limit.
        keys = Locked(BoundedMap { key, _ in key.slots.inUse > 0 })
    }

    /// The limit of `key` now (where it starts, for a key no call has used).
    public func currentLimit(for key: String) -> Int {
        keys.withLock { $0[key].map(limit(of:)) } ?? initialLimit
    }

    /// How many keys it keeps slots for (bounded: ``BoundedMap``).
    package var keyCount: Int { keys.withLock { $0.count } }

    /// Waits for a slot of the request's key, passes the request on, and moves the limit by what that took.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        // The working before and after in functions of their own: this frame, held while the call is out, keeps
        // the slot and what the limit learns from the call, not the working besides.
        let key = request.resilienceKey
        let (slots, admittedUnder) = slots(for: key)
        let asked = ContinuousClock.now
        try await acquire(slots, key: key, limit: admittedUnder, request)
        let held = Held(key: key, slots: slots, start: .now, inFlight: slots.inUse)
        request.events?.report(
            .capability(
                ResilienceEvent.concurrencyLimitAcquired(key: key, limit: admittedUnder, waited: held.start - asked)))
        let result = await Result { try await execution(request) }
        release(held, after: result)
        return try result.get()
    }

    /// A slot a call holds, and what the limit learns when the call ends.
    private struct Held {
        let key: String
        let slots: CallLimiter
        let start: ContinuousClock.Instant
        /// The calls in flight when this one started, itself included.
        let inFlight: Int
    }

    /// The slots of `key`, made when it has none, and the limit a call waiting for one now is admitted under.
    @inline(never)
    private func slots(for key: String) -> (CallLimiter, Int) {
        let now = clock.now
        return keys.withLock { keys in
            keys.withValue(for: key, now: now, default: newKey()) { ($0.slots, limit(of: $0)) }
        }
    }

    /// Gives back the slot `held`, first moving an adaptive limit by what the call took and how it ended.
    @inline(never)
    private func release(_ held: Held, after result: Result<HTTPDataResponse, any Error>) {
        let latency = (ContinuousClock.now - held.start).seconds
        let outcome = failures.outcome(of: result)
        let failed = outcome == .failure
        let moved: Int? = keys.withLock { keys in
            // A call cancelled, or ended by an error that says nothing of the backend, teaches the limit nothing: its
            // latency would set the baseline that every normal call after it is judged slow against.
            guard case .adaptive(let settings) = limit, outcome != .ignored else { return nil }
            return keys.update(held.key, now: clock.now) { entry in
                let changed = entry.adaptive?.sample(
                    latency: latency, failed: failed, inFlight: held.inFlight, settings)
                return changed == true ? entry.adaptive?.admittedLimit : nil
            } ?? nil
        }
        if let moved { held.slots.setLimit(moved) }
        held.slots.release()
    }

    /// Waits for a slot of `slots`, on the caller's executor, for as long as the call's deadline allows.
    @inline(never)
    nonisolated(nonsending) private func acquire(
        _ slots: CallLimiter, key: String, limit: Int, _ request: HTTPRequest
    ) async throws {
        guard let timeLeft = request.exchangeDeadline?.timeLeft else {
            guard try await slots.acquire(queueLimit: maximumQueued) else {
                throw ResilienceError.loadShed(key: key, limit: limit)
            }
            return
        }
        // A free slot is taken at once: no race, and no timer that a virtual clock would move on.
        if slots.acquireAtOnce() { return }
        // A wait bounded by the deadline: the slot and the deadline race. Every child is waited for, whichever ends
        // first and however (a cancelled timer throws): a slot won after the race was decided goes back.
        let first = await withThrowingTaskGroup(of: Bool?.self) { group -> Result<Bool?, any Error>? in
            group.addTask { try await slots.acquire(queueLimit: self.maximumQueued) }
            group.addTask {
                try await self.clock.sleep(for: timeLeft)
                return nil
            }
            var first: Result<Bool?, any Error>?
            while let next = await group.nextResult() {
                guard first != nil else {
                    first = next
                    group.cancelAll()
                    continue
                }
                if case .success(true?) = next { slots.release() }
            }
            return first
        }
        switch first {
        case .success(true?)?: return
        case .success(false?)?: throw ResilienceError.loadShed(key: key, limit: limit)
        case .success(nil)?:
            throw RestingError.deadlineExceeded(DeadlineExceeded(limit: .call, stage: .concurrencyWait))
        case .failure(let error)?: throw error as? RestingError ?? .cancelled
        case nil: throw RestingError.cancelled
        }
    }

    private var initialLimit: Int {
        switch limit {
        case .fixed(let count): max(1, count)
        case .adaptive(let settings): settings.initialLimit
        }
    }

    private func newKey() -> Key {
        switch limit {
        case .fixed: Key(slots: CallLimiter(limit: initialLimit))
        case .adaptive(let settings): Key(slots: CallLimiter(limit: initialLimit), adaptive: AdaptiveLimit(settings))
        }
    }

    private func limit(of key: Key) -> Int { key.adaptive?.admittedLimit ?? initialLimit }
}

extension ConcurrencyLimitInterceptor {
    /// Rank 5 of the resilience order, in `interceptors`: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 5, list: .application, name: "ConcurrencyLimitInterceptor")
    }
}
