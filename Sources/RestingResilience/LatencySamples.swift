import RestingCore

/// The recent latencies of one key's calls, for a percentile of them: a ring of the last 512, sorted again only
/// every 32 new samples, so that reading the percentile on every call costs a lookup.
struct LatencySamples {
    private static let capacity = 512
    private static let recomputeEvery = 32
    /// Below this many samples there is no percentile: a hedging delay falls back to its fixed value.
    static let minimumSamples = 20

    private var ring: [Double] = []
    private var next = 0
    private var sinceSorted = 0
    private var sorted: [Double] = []

    /// Adds a latency, in seconds.
    mutating func add(_ seconds: Double) {
        if ring.count < Self.capacity {
            ring.append(seconds)
        } else {
            ring[next] = seconds
        }
        next = (next + 1) % Self.capacity
        sinceSorted += 1
        if sorted.count < Self.minimumSamples || sinceSorted >= Self.recomputeEvery {
            sorted = ring.sorted()
            sinceSorted = 0
        }
    }

    /// The `fraction` (0…1) percentile, in seconds; `nil` below ``minimumSamples``.
    func percentile(_ fraction: Double) -> Double? {
        guard sorted.count >= Self.minimumSamples else { return nil }
        let rank = Int((min(max(fraction, 0), 1) * Double(sorted.count - 1)).rounded(.up))
        return sorted[rank]
    }
}
