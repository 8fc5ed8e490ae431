/// Rewrites every request before it goes on: Malibu's `beforeEach`, as an interceptor.
///
/// ```swift
/// RequestRewriter { request in
///     var request = request
///     request.headers["X-Request-Id"] = UUID().uuidString
///     return request
/// }
/// ```
public struct RequestRewriter: RestingInterceptor {
    private let rewrite: @Sendable (HTTPRequest) async throws -> HTTPRequest

    /// An interceptor applying `rewrite` to every request.
    public init(_ rewrite: @escaping @Sendable (HTTPRequest) async throws -> HTTPRequest) { self.rewrite = rewrite }

    /// Passes on the rewritten request; what `rewrite` throws reaches the caller.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await execution(try await rewrite(request))
    }
}
