/// A listener that hands events to a consumer on its own task, through a bounded buffer: for listeners with slow
/// work (a file, a network exporter). A call never waits for the consumer: when the buffer is full the oldest
/// event is dropped, and counted.
///
/// ```swift
/// let buffer = CallEventBuffer(capacity: 1024)
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, eventListener: .shared(buffer))
/// Task { for await event in buffer.events { await exporter.send(event) } }
/// ```
public final class CallEventBuffer: CallEventListener {
    /// The events, in the order they were handled, less those dropped; ends when the buffer is ``finish()``ed.
    public let events: AsyncStream<CallEvent>
    private let continuation: AsyncStream<CallEvent>.Continuation
    private let dropped = Locked<Int>(0)

    /// A buffer holding up to `capacity` events the consumer has not taken.
    public init(capacity: Int) {
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(max(1, capacity)))
    }

    /// Events dropped so far because the consumer was behind by `capacity`.
    public var droppedCount: Int { dropped.withLock { $0 } }

    public func handle(_ event: CallEvent) {
        if case .dropped = continuation.yield(event) { dropped.withLock { $0 += 1 } }
    }

    /// Ends ``events`` once the consumer has taken what is buffered.
    public func finish() { continuation.finish() }
}
