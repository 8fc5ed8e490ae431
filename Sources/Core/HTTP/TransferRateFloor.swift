/// Whether a transfer keeps up with its ``MinimumTransferRate``, from the running count of bytes received
/// and the time: a value type the transports feed from their callbacks, tested without sockets.
///
/// ```swift
/// var floor = TransferRateFloor(.default)
/// if floor.isTooSlow(received: total, at: .now) { fail() }
/// ```
package struct TransferRateFloor: Sendable {
    private let rate: MinimumTransferRate
    /// Where the current window began, and how much had been received then; `nil` before the first byte.
    private var windowStart: (instant: ContinuousClock.Instant, received: Int64)?

    package init(_ rate: MinimumTransferRate) { self.rate = rate }

    /// Records that `received` bytes have arrived in all by `now`; true when a whole window has passed with
    /// fewer than the rate's bytes in it.
    package mutating func isTooSlow(received: Int64, at now: ContinuousClock.Instant) -> Bool {
        guard let start = windowStart else {
            if received > 0 { windowStart = (now, received) }
            return false
        }
        guard now - start.instant >= rate.window else { return false }
        if received - start.received < rate.bytes { return true }
        windowStart = (now, received)
        return false
    }
}
