import Testing

@testable import RestingCurl

/// A driver thread's phase as the threads posting to it see it, without a thread or a socket.
@Suite("Driver phases")
struct DriverPhaseTests {
    @Test("a sender wakes a sleeping driver once: the first post after it fell asleep, not the ones after")
    func wakesOnce() {
        var phase = DriverPhase.running(isAsleep: false)
        let wokeAwake = phase.wake()
        #expect(!wokeAwake, "an awake driver needs no wake-up")
        phase.fallAsleep()
        let (first, second) = (phase.wake(), phase.wake())
        #expect(first && !second)
        #expect(phase == .running(isAsleep: false))
    }

    @Test("asked to stop, a driver keeps whether it sleeps, still takes wake-ups, and is not yet stopped")
    func stopping() {
        var phase = DriverPhase.running(isAsleep: false)
        phase.fallAsleep()
        phase.askToStop()
        #expect(phase == .stopping(isAsleep: true))
        #expect(phase.isStopping && !phase.hasStopped)
        let woke = phase.wake()
        #expect(woke)
        phase.askToStop()
        #expect(phase == .stopping(isAsleep: false))
    }

    @Test("a stopped driver neither sleeps nor wakes, nor goes back to stopping")
    func stopped() {
        var phase = DriverPhase.stopped
        phase.fallAsleep()
        let woke = phase.wake()
        #expect(!woke)
        phase.askToStop()
        #expect(phase == .stopped)
        #expect(phase.hasStopped && !phase.isStopping)
    }
}
