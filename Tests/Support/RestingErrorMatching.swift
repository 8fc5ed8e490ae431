import RestingCore

/// Whether `error` is a ``RestingError`` whose ``RestingError/errorType`` is `type` (`"shutDown"`, `"cancelled"`, a
/// transport failure's kind): what `#expect(throws:)` checks, `RestingError` not being `Equatable`.
///
/// ```swift
/// await #expect { try await client.send(request) } throws: { isRestingError($0, "shutDown") }
/// ```
public func isRestingError(_ error: any Error, _ type: String) -> Bool {
    (error as? RestingError)?.errorType == type
}
