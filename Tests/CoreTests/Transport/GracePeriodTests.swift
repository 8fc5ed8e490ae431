import Testing

@testable import RestingCore

@Suite("A shutdown's grace period")
struct GracePeriodTests {
    @Test("no grace (zero or less) expires at once, in the caller — not once a thread is free to run a timer")
    func noGraceExpiresNow() {
        for period in [Duration.zero, .seconds(-1)] {
            let expired = Locked(0)
            let deadline = GracePeriod(period) { expired.withLock { $0 += 1 } }
            #expect(expired.withLock { $0 } == 1, "\(period)")
            deadline.cancel()
            #expect(expired.withLock { $0 } == 1, "cancelled after it expired, it does not expire again")
        }
    }

    @Test("a grace period expires once it has passed")
    func expiresOnceItHasPassed() async {
        let expired = Locked(0)
        await withCheckedContinuation { continuation in
            _ = GracePeriod(.milliseconds(1)) {
                expired.withLock { $0 += 1 }
                continuation.resume()
            }
        }
        #expect(expired.withLock { $0 } == 1)
    }

    @Test("a sleep of any size, up to Int64.max seconds, waits until cancelled instead of trapping")
    func sleepOfAnySize() async {
        for duration in [Duration.effectivelyForever, .seconds(Int64.max)] {
            let (started, start) = AsyncStream<Void>.makeStream()
            let sleeping = Task {
                start.finish()
                try await Task.sleep(forAnyDuration: duration)
            }
            // Cancelled once it has begun: a task cancelled before its sleep begins never gets to the clock.
            for await _ in started {}
            sleeping.cancel()
            await #expect(throws: CancellationError.self) { try await sleeping.value }
        }
    }
}
