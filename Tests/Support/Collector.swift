import RestingCore

/// Collects values from any thread and lets a test wait for a condition on them, without sleeping.
public final class Collector<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    private let updates: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() { (updates, continuation) = AsyncStream.makeStream(of: Void.self) }

    public func append(_ value: Value) {
        values.withLock { $0.append(value) }
        continuation.yield()
    }

    public var all: [Value] { values.withLock { $0 } }

    /// Waits until `condition` holds for the collected values.
    public func wait(until condition: ([Value]) -> Bool) async {
        if condition(all) { return }
        for await _ in updates where condition(all) { return }
    }
}
