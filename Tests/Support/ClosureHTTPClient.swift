import RestingCore

/// A transport answering with a closure, for tests that script the server's behaviour.
public struct ClosureHTTPClient: HTTPClient {
    private let handler: @Sendable (HTTPRequest) async throws -> HTTPDataResponse

    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse) {
        self.handler = handler
    }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        try await handler(request)
    }
}
