import RestingCore
import Testing

/// What ``finishing(within:on:_:)`` throws when its operation has not finished in time.
public struct Hang: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "did not finish within \(limit): it hangs" }
}

/// Runs `operation` in a task of its own (preferring `executor`, if any) and returns its result, or throws ``Hang``
/// once `limit` has passed without one — without waiting for the operation, which a hang would never end.
///
/// For lifecycle calls that could deadlock (a shutdown awaited on the executor it stops, a wait for the call it runs
/// in): a hang then fails the test that found it instead of blocking the suite. The limit is a hang detector, never a
/// timing assertion: pick one that a healthy run under a sanitizer on two cores stays far below.
public func finishing<Value: Sendable>(
    within limit: Duration = .seconds(120), on executor: (any TaskExecutor)? = nil,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let waiter = Locked<CheckedContinuation<Value, any Error>?>(nil)
    let take: @Sendable () -> CheckedContinuation<Value, any Error>? = {
        waiter.withLock { waiter in
            defer { waiter = nil }
            return waiter
        }
    }
    var tasks: [Task<Void, Never>] = []
    defer { for task in tasks { task.cancel() } }
    return try await withCheckedThrowingContinuation { continuation in
        waiter.withLock { $0 = continuation }
        tasks.append(
            Task(executorPreference: executor) {
                let result = await Result { try await operation() }
                take()?.resume(with: result)
            })
        tasks.append(
            Task {
                try? await Task.sleep(for: limit)
                take()?.resume(throwing: Hang(limit: limit))
            })
    }
}

/// `operation`'s value, or `nil` with an issue recorded when it has not finished within 240 s: a hang detector for
/// tests that go on after a hang (to release what hangs), never a measurement.
@discardableResult
public func withoutHanging<Value: Sendable>(
    _ what: Comment, _ operation: @escaping @Sendable () async throws -> Value
) async -> Value? {
    do {
        return try await finishing(within: .seconds(240), operation)
    } catch {
        Issue.record("\(what): \(error)")
        return nil
    }
}
