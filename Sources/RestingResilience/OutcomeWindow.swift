import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The recent outcomes a circuit breaker judges a failure rate over: the last `n` calls, or the calls of the last
/// stretch of time (in ten buckets, each dropped whole when it ages out). Fixed size whatever the traffic; recording
/// writes in place.
struct OutcomeWindow: Equatable {
    struct Bucket: Equatable {
        /// The stretch the bucket counts: time since 1970 / ``width``.
        var index: Int64 = .min
        var calls = 0
        var failures = 0
    }

    /// A count window's ring of the last outcomes (`true`: a failure), where the next goes, how many it holds, and
    /// how many of those failed (kept as they come: every call's outcome asks for it).
    private var ring: [Bool] = []
    private var next = 0
    private var filled = 0
    private var failedInRing = 0
    /// A time window's buckets, each `width` seconds long; `nil` for a count window.
    private var buckets: [Bucket] = []
    private var width: Double?

    init(_ window: CircuitBreakerInterceptor.Policy.Window) {
        switch window {
        case .count(let size): ring = Array(repeating: false, count: max(1, size))
        case .time(let span):
            buckets = Array(repeating: Bucket(), count: 10)
            width = max(span.seconds, 0.001) / 10
        }
    }

    /// Adds one outcome at `now`.
    mutating func record(failure: Bool, now: Date) {
        guard let width else {
            // The outcome it replaces leaves the count (a slot not yet written holds `false`).
            if ring[next] { failedInRing -= 1 }
            ring[next] = failure
            if failure { failedInRing += 1 }
            next = (next + 1) % ring.count
            filled = min(filled + 1, ring.count)
            return
        }
        let index = Int64((now.timeIntervalSince1970 / width).rounded(.down))
        let slot = Int(index.magnitude % UInt64(buckets.count))
        if buckets[slot].index != index { buckets[slot] = Bucket(index: index) }
        buckets[slot].calls += 1
        if failure { buckets[slot].failures += 1 }
    }

    /// The calls in the window at `now`, and how many of them failed.
    func counts(now: Date) -> (calls: Int, failures: Int) {
        guard let width else { return (filled, failedInRing) }
        let current = Int64((now.timeIntervalSince1970 / width).rounded(.down))
        let live = buckets.lazy.filter { $0.index > current - Int64(self.buckets.count) && $0.index <= current }
        return (live.reduce(0) { $0 + $1.calls }, live.reduce(0) { $0 + $1.failures })
    }
}
