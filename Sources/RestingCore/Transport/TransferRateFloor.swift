/// Whether a transfer keeps up with its ``MinimumTransferRate``, from the running count of bytes received
/// and the time: a value type the transports feed from their callbacks, tested without sockets.
///
/// ```swift
/// var floor = TransferRateFloor(.default)
/// if floor.isTooSlow(received: total, at: .now) { fail() }
/// ```
package struct TransferRateFloor: Sendable {
    private let rate: MinimumTransferRate
    /// Where the current window began, `nil` before the first byte.
    private var windowStart: MonotonicInstant?
    /// How much had been received when the current window began.
    private var receivedAtWindowStart: Int64 = 0

    package init(_ rate: MinimumTransferRate) { self.rate = rate }

    /// Records that `received` bytes have arrived in all by `now`; true when a whole window has passed with
    /// fewer than the rate's bytes in it.
    package mutating func isTooSlow(received: Int64, at now: MonotonicInstant) -> Bool {
        guard let start = windowStart else {
            if received > 0 { (windowStart, receivedAtWindowStart) = (now, received) }
            return false
        }
        guard now - start >= rate.window else { return false }
        if received - receivedAtWindowStart < rate.bytes { return true }
        (windowStart, receivedAtWindowStart) = (now, received)
        return false
    }
}
