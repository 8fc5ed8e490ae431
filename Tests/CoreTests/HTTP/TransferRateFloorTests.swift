import Testing

@testable import RestingCore

/// The minimum-rate rule, step by step, with no socket and no waiting.
@Suite("Minimum transfer rate")
struct TransferRateFloorTests {
    /// The floor's verdict ("too slow?") after each (bytes received in all, seconds since the start) step.
    private func verdicts(_ steps: [(received: Int64, second: Int)]) -> [Bool] {
        let start = MonotonicInstant.now
        var floor = TransferRateFloor(MinimumTransferRate(bytes: 100, window: .seconds(10)))
        return steps.map { floor.isTooSlow(received: $0.received, at: start + .seconds($0.second)) }
    }

    @Test("nothing is judged before the first byte: waiting for the answer is the idle timeout's business")
    func waitsForTheFirstByte() {
        #expect(verdicts([(0, 0), (0, 300)]) == [false, false])
    }

    @Test("a drip fails once a whole window passes with fewer bytes than the rate")
    func dripFails() {
        let drip = (0...10).map { (received: Int64($0 + 1), second: $0) }
        #expect(verdicts(drip) == Array(repeating: false, count: 10) + [true])
    }

    @Test("a transfer that keeps up opens a new window each time, however long it runs")
    func steadyTransferPasses() {
        let steady = (0...100).map { (received: Int64(1 + 100 * $0), second: 10 * $0) }
        #expect(!verdicts(steady).contains(true))
    }

    @Test("a pause inside a window is fine when the window still brings its bytes")
    func burstsPass() {
        #expect(verdicts([(1, 0), (1, 9), (500, 10), (501, 20)]) == [false, false, false, true])
    }
}
