/// What ``HTTPClient/warmConnections(_:to:headers:)`` did: how many of its requests were answered, how many
/// connections they opened, and why the others failed.
///
/// ```swift
/// let warmed = try await transport.warmConnections(4, to: URL(string: "https://api.example.com/health")!)
/// if !warmed.failures.isEmpty { logger.notice("warm-up: \(warmed)") }  // the calls will connect as usual
/// ```
public struct ConnectionWarmUp: Sendable, CustomStringConvertible {
    /// Requests the server answered, whatever the status: each had a connection, which the transport keeps for the
    /// next calls unless the server closed it.
    public var answered: Int
    /// How many connections the answered requests opened.
    public var opened: Int
    /// Why the other requests failed (no connection could be made, the warm-up was cancelled): a warm-up that fails
    /// leaves the calls to connect as they would have.
    public var failures: [RestingError]

    /// What a warm-up did.
    public init(answered: Int = 0, opened: Int = 0, failures: [RestingError] = []) {
        self.answered = answered
        self.opened = opened
        self.failures = failures
    }

    public var description: String { "\(answered) answered, \(opened) opened, \(failures.count) failed" }
}
