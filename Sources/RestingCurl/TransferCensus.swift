import RestingCore
import Synchronization

/// Transfers alive right now, per client: what the leak and cancellation stress tests assert. (A caller is resumed
/// exactly once by construction: ``TransferLifecycle`` hands each waiter out once.) A counter rather than a lock:
/// every transfer of every driver thread touches it twice.
package final class TransferCensus: Sendable {
    package struct Counts: Sendable, Equatable {
        package var live = 0
    }

    private let live = Atomic<Int>(0)

    func transferCreated() { live.add(1, ordering: .relaxed) }

    func transferFreed() { live.subtract(1, ordering: .relaxed) }

    package var current: Counts { Counts(live: live.load(ordering: .relaxed)) }
}
