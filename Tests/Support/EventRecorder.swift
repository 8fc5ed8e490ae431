import RestingCore

/// A listener that keeps every event it hears, in order, for a test to read.
public final class EventRecorder: CallEventListener {
    private let events = Locked<[CallEvent]>([])

    public init() {}

    public func handle(_ event: CallEvent) { events.withLock { $0.append(event) } }

    /// Every event so far.
    public var all: [CallEvent] { events.withLock { $0 } }

    /// The kinds of every event so far.
    public var kinds: [CallEvent.Kind] { all.map(\.kind) }

    /// The id of the call whose events came `index`-th (0: the first call heard of), if there was one.
    public func callID(_ index: Int) -> UInt64? {
        var seen: [UInt64] = []
        for event in all where !seen.contains(event.callID) { seen.append(event.callID) }
        return seen.count > index ? seen[index] : nil
    }
}
