extension Duration {
    /// The whole milliseconds in this duration, for APIs that take a count of them; saturates at `Int.max`
    /// (and `Int.min`) instead of trapping, so that no duration a caller or a server chooses can crash.
    package var wholeMilliseconds: Int { Int(clamping: whole(perSecond: 1000)) }

    /// Whole nanoseconds (the rest dropped), saturating like ``wholeMilliseconds``.
    package var wholeNanoseconds: Int64 { whole(perSecond: 1_000_000_000) }

    /// Whole units of `1 / perSecond` seconds, the rest dropped; saturating at `Int64.max` and `Int64.min`.
    private func whole(perSecond: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (units, overflowed) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflowed else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflowed) = units.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / perSecond))
        return sumOverflowed ? (seconds < 0 ? .min : .max) : sum
    }

    /// Whole seconds, rounded up, saturating like ``wholeMilliseconds``.
    package var wholeSecondsRoundedUp: Int {
        let (seconds, attoseconds) = components
        guard seconds < Int64(Int.max) else { return .max }
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    /// The duration in seconds, for APIs that take a `TimeInterval`.
    package var seconds: Double {
        // `components` once: each read divides a 128-bit count.
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Longer than any timer needs to run (a century): a deadline beyond it is treated as none, since adding
    /// a larger one to a clock's `now` could overflow.
    package static let effectivelyForever = Duration.seconds(100 * 365 * 24 * 3600)
}

extension Task where Success == Never, Failure == Never {
    /// `sleep(for:)` for a duration of any size, which a user or a server may give: one from
    /// ``Swift/Duration/effectivelyForever`` on (past 292 years `sleep(for:)` traps) sleeps until the task is cancelled.
    package static func sleep(forAnyDuration duration: Duration) async throws {
        guard duration >= .effectivelyForever else { return try await sleep(for: duration) }
        while true { try await sleep(for: .effectivelyForever) }
    }
}
