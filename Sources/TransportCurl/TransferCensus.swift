import RestingCore

/// Transfers alive right now, and continuations resumed twice (must stay 0), per client: what the leak and
/// cancellation stress tests assert.
package final class TransferCensus: Sendable {
    package struct Counts: Sendable, Equatable {
        package var live = 0
        package var doubleResumes = 0
    }

    private let counts = Locked(Counts())

    func record(_ change: (inout Counts) -> Void) { counts.withLock(change) }

    package var current: Counts { counts.withLock { $0 } }
}
