import Testing

@testable import RestingCore

@Suite("Monotonic instants")
struct MonotonicInstantTests {
    @Test("the clock never goes back, and instants subtract to durations")
    func arithmetic() {
        let first = MonotonicInstant.now
        let second = MonotonicInstant.now
        #expect(second >= first)
        let later = first + .milliseconds(1500)
        #expect(later - first == .milliseconds(1500))
        #expect(later + .milliseconds(-1500) == first)
        #expect(first < later)
    }

    @Test("adding a duration saturates instead of trapping, whatever a caller or a server asks for")
    func saturation() {
        let now = MonotonicInstant.now
        #expect((now + .seconds(Int64.max)).nanoseconds == .max)
        #expect(now + .seconds(Int64.min) < now)
        #expect((MonotonicInstant(nanoseconds: -1) + .seconds(Int64.min)).nanoseconds == .min)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeNanoseconds == .min)
        #expect(Duration.milliseconds(1500).wholeNanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(-7).wholeNanoseconds == -7)
    }
}
