import Foundation

/// Per-request latencies in HdrHistogram-style buckets: exact below 128 ns, then 64 buckets per power of two (at most
/// 1.6 % off), in one array allocated up front, so that recording a sample allocates nothing. The same histogram as
/// Benchmarks/c/latency.h, so that both sides' percentiles are read the same way.
struct LatencyHistogram: Sendable {
    private static let bucketCount = 64 * 64
    private var counts = [UInt64](repeating: 0, count: LatencyHistogram.bucketCount)
    private var total: UInt64 = 0

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    mutating func record(nanoseconds: UInt64) {
        counts[Self.bucket(of: nanoseconds)] += 1
        total += 1
    }

    mutating func merge(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        total += other.total
    }

    /// The latency below which `fraction` of the samples fall, in microseconds (a bucket's lowest value).
    func percentile(_ fraction: Double) -> Double {
        let rank = UInt64((fraction * Double(total)).rounded(.up))
        var seen: UInt64 = 0
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= rank, seen > 0 { return Double(Self.value(ofBucket: index)) / 1000 }
        }
        return 0
    }

    /// " p50_us p99_us p999_us", as the benchmark lines end.
    var summary: String {
        String(format: " %.1f %.1f %.1f", percentile(0.5), percentile(0.99), percentile(0.999))
    }

    private static func bucket(of nanoseconds: UInt64) -> Int {
        guard nanoseconds >= 128 else { return Int(nanoseconds) }
        let shift = 64 - nanoseconds.leadingZeroBitCount - 7
        return min((shift + 1) * 64 + Int((nanoseconds >> shift) - 64), bucketCount - 1)
    }

    private static func value(ofBucket index: Int) -> UInt64 {
        guard index >= 128 else { return UInt64(index) }
        return UInt64(index % 64 + 64) << (index / 64 - 1)
    }
}
