/// The result of `operation`, or the error `expired` makes when `operation` runs longer than `limit`.
///
/// What transports without an exact timer of their own use to enforce ``HTTPRequest/timeout``. Cancelling the
/// caller cancels `operation`, and the wait ends with ``RestingError/cancelled`` rather than a
/// `CancellationError`, whichever of the two notices first.
///
/// ```swift
/// let response = try await withDeadline(.seconds(2), expired: { .transportFailed(timedOut) }) { try await exchange() }
/// ```
package func withDeadline<Value: Sendable>(
    _ limit: Duration, expired: @escaping @Sendable () -> RestingError,
    operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    // A clock cannot be asked to wait past its range; a deadline a century away is none.
    guard limit < .effectivelyForever else { return try await operation() }
    return try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask(operation: operation)
        group.addTask {
            do {
                try await Task.sleep(for: limit)
            } catch {
                throw RestingError.cancelled
            }
            throw expired()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw RestingError.cancelled }
        return first
    }
}
