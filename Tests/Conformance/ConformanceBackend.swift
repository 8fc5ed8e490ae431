import RestingServerHarness
import RestingTesting

/// What answers the checks' requests: the conformance server on 127.0.0.1 for transports with a wire, or
/// ``ConformanceModel`` for ``/RestingTesting/StubHTTPClient``, which has none.
public protocol ConformanceBackend: Sendable {
    /// The port the checks put in their URLs.
    var port: Int { get }
    /// The scheme the checks put in their URLs: `http`, unless the backend answers over TLS only (an HTTP/3 front).
    var scheme: String { get }
    /// Whether requests reach a server over sockets, which the streaming checks need; `false` for a model.
    var hasWire: Bool { get }
    /// Returns once a request tagged `tag` is being answered slowly (`/delay`, `/slow-read`, `/slow-download`).
    func waitUntilDelaying(tag: String) async throws
}

extension ConformanceBackend {
    /// `http`.
    public var scheme: String { "http" }
    /// `true`.
    public var hasWire: Bool { true }
}

extension LocalServer: ConformanceBackend {
    public func waitUntilDelaying(tag: String) async throws { try await waitUntilDelaying(tag: tag, attempts: 2_000) }
}
