import RestingCore

/// An adaptive concurrency limit, as a value: additive increase while latency holds near its baseline and the limit
/// is in use, multiplicative decrease when a call fails or is much slower than the baseline — the AIMD algorithm of
/// Netflix's concurrency-limits, with its latency signal taken from the gradient algorithm (a sample over
/// ``ConcurrencyLimitInterceptor/Adaptive/latencyTolerance`` times the least recent latency is a drop).
struct AdaptiveLimit: Equatable {
    /// Samples after which the baseline forgets the least latency before them: a backend that became slower for
    /// good becomes the new normal instead of holding the limit down for ever.
    static let baselineWindow = 250

    private(set) var limit: Double
    /// The least latency of this window and of the one before, in seconds.
    private var windowMinimum = Double.infinity
    private var previousMinimum = Double.infinity
    private var samplesInWindow = 0

    init(_ settings: ConcurrencyLimitInterceptor.Adaptive) { limit = Double(settings.initialLimit) }

    /// The limit a call may be admitted under.
    var admittedLimit: Int { Int(limit) }

    /// The least latency recently seen, in seconds.
    var baseline: Double { min(windowMinimum, previousMinimum) }

    /// Takes in a call that took `latency` seconds, failed or not, ended with `inFlight` calls (itself included)
    /// in flight; returns whether the limit moved.
    mutating func sample(
        latency: Double, failed: Bool, inFlight: Int, _ settings: ConcurrencyLimitInterceptor.Adaptive
    ) -> Bool {
        let before = admittedLimit
        let slow = baseline.isFinite && latency > baseline * settings.latencyTolerance
        if !failed { recordLatency(latency) }
        if failed || slow {
            limit = max(Double(settings.minimumLimit), (limit * settings.backoffRatio).rounded(.down))
        } else if Double(inFlight * 2) >= limit {
            // Only a limit in use grows: an idle client learns nothing of the backend's capacity.
            limit = min(Double(settings.maximumLimit), limit + 1)
        }
        return admittedLimit != before
    }

    private mutating func recordLatency(_ latency: Double) {
        windowMinimum = min(windowMinimum, latency)
        samplesInWindow += 1
        if samplesInWindow >= Self.baselineWindow {
            (previousMinimum, windowMinimum, samplesInWindow) = (windowMinimum, .infinity, 0)
        }
    }
}
