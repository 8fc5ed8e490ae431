import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends an idempotent request a second time when the first has not been answered after a delay, and takes the
/// first good answer: one slow backend, one lost packet or one long pause no longer sets a call's tail latency.
///
/// - **When:** after ``Delay/fixed(_:)``, or ``Delay/percentile(_:fallback:)`` of this key's recent latencies
///   (the 95th: 5 % of calls are hedged, and those are the slow ones). At most ``maximumHedges`` more sends per
///   call (a request's ``RestingCore/RequestAttributes/maximumHedges`` overrides it), each drawing one token from ``budget`` —
///   share the ``/RestingCore/RetryInterceptor``'s, so that a brownout, which makes every call slow, cannot double the load.
/// - **Which:** the first answer with a status below 500 wins; a failure or a 5xx waits for the other sends, and is
///   the call's outcome only when none is left. The others are cancelled down to the transport, which drops their
///   connections.
/// - **Only** idempotent requests (by method, or ``/RestingCore/RequestAttributes/isIdempotent``), with a body that can be sent
///   twice, whose response is read whole (not streamed or downloaded).
///
/// Put it inside the ``/RestingCore/RetryInterceptor`` (each attempt is hedged) and outside ``RateLimitInterceptor`` and
/// ``ConcurrencyLimitInterceptor`` (each send takes a token and a slot).
///
/// ```swift
/// let budget = RetryBudget()
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [RetryInterceptor(budget: budget), HedgingInterceptor(budget: budget)])
/// ```
public struct HedgingInterceptor: PlacedInterceptor {
    /// How long a send goes unanswered before the next starts.
    public enum Delay: Sendable, Equatable {
        /// Always this long.
        case fixed(Duration)
        /// The `percentile` (0…1) of the latencies of the key's recent answers, and `fallback` until 20 are known.
        case percentile(Double, fallback: Duration)
    }

    /// How long a send goes unanswered before the next starts.
    public let delay: Delay
    /// The most sends after the first, per call.
    public let maximumHedges: Int
    /// Where each hedge takes a token from.
    public let budget: RetryBudget
    private let clock: any InterceptorClock
    private let latencies: Locked<BoundedMap<String, LatencySamples>>

    /// Hedges after `delay`, at most `maximumHedges` per call, each paid from `budget`, timed by `clock`.
    public init(
        delay: Delay = .percentile(0.95, fallback: .milliseconds(100)), maximumHedges: Int = 1,
        budget: RetryBudget = RetryBudget(), clock: any InterceptorClock = SystemClock()
    ) {
        self.delay = delay
        self.maximumHedges = max(0, maximumHedges)
        self.budget = budget
        self.clock = clock
        latencies = Locked(BoundedMap())
    }

    /// How many keys it keeps latencies for (bounded: ``BoundedMap``).
    package var keyCount: Int { latencies.withLock { $0.count } }

    /// The delay before a hedge of a request to `key`, now.
    func hedgeDelay(for key: String) -> Duration {
        switch delay {
        case .fixed(let duration): return duration
        case .percentile(let fraction, let fallback):
            return latencies.withLock { $0[key]?.percentile(fraction) }.map { .seconds($0) } ?? fallback
        }
    }

    /// Sends the request, and hedges it while it is unanswered and hedging is allowed.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        var request = request
        budget.recordRequest(&request)
        let key = request.resilienceKey
        let hedges = request.attributes.maximumHedges ?? maximumHedges
        let start = ContinuousClock.now
        guard hedges > 0, request.isIdempotent, !request.body.isSinglePass, request.answersInMemory else {
            let result = await Result { try await execution(request) }
            record(result, for: key, since: start)
            return try result.get()
        }
        let result = await race(request, hedges: hedges, delay: hedgeDelay(for: key), execution)
        record(result, for: key, since: start)
        return try result.get()
    }

    private enum Arrival: Sendable {
        case answer(Result<HTTPDataResponse, any Error>)
        case hedgeDue
    }

    /// The first good answer of the sends of `request`, a hedge started each `delay` without one.
    private func race(
        _ request: HTTPRequest, hedges: Int, delay: Duration, _ execution: InterceptorExecution
    ) async -> Result<HTTPDataResponse, any Error> {
        await withTaskGroup(of: Arrival.self) { group in
            var (sent, inFlight) = (0, 0)
            func send() {
                var hedge = request
                hedge.attributes.hedge = sent
                group.addTask { .answer(await Result { try await execution(hedge) }) }
                sent += 1
                inFlight += 1
                if sent <= hedges {
                    group.addTask {
                        // Cancelled when the race is decided: a hedge then starts no more.
                        try? await clock.sleep(for: delay)
                        return .hedgeDue
                    }
                }
            }
            send()
            var last: Result<HTTPDataResponse, any Error> = .failure(RestingError.cancelled)
            while let arrival = await group.next() {
                switch arrival {
                case .hedgeDue:
                    guard inFlight > 0, !Task.isCancelled, budget.withdraw() else { continue }
                    request.events?.report(.capability(ResilienceEvent.hedgeStarted(hedge: sent, delay: delay)))
                    send()
                case .answer(let result):
                    inFlight -= 1
                    last = result
                    if Self.isGood(result) || inFlight == 0 {
                        group.cancelAll()
                        return result
                    }
                }
            }
            return last
        }
    }

    /// Whether `result` ends the race: a response (or the error an inner interceptor made of one) below 500.
    private static func isGood(_ result: Result<HTTPDataResponse, any Error>) -> Bool {
        guard let head = result.responseHead else { return false }
        return head.status < 500
    }

    private func record(
        _ result: Result<HTTPDataResponse, any Error>, for key: String, since start: ContinuousClock.Instant
    ) {
        guard case .percentile = delay, Self.isGood(result) else { return }
        let elapsed = (ContinuousClock.now - start).seconds
        let now = clock.now
        latencies.withLock { $0.withValue(for: key, now: now, default: LatencySamples()) { $0.add(elapsed) } }
    }
}

extension HedgingInterceptor {
    /// Rank 3 of the resilience order: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "resilience", rank: 3, list: .either, name: "HedgingInterceptor")
    }
}
