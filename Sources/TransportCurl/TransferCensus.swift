import RestingCore

/// Transfers alive right now, per client: what the leak and cancellation stress tests assert. (A caller is resumed
/// exactly once by construction: ``TransferLifecycle`` hands each waiter out once.)
package final class TransferCensus: Sendable {
    package struct Counts: Sendable, Equatable {
        package var live = 0
    }

    private let counts = Locked(Counts())

    func record(_ change: (inout Counts) -> Void) { counts.withLock(change) }

    package var current: Counts { counts.withLock { $0 } }
}
