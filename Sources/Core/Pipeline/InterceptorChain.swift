/// Runs a request through the application interceptors, in order, then follows redirects hop by hop
/// through the network interceptors and the transport; every request that reaches the transport passes the
/// ``CredentialBoundary`` first.
///
/// Without network interceptors the transport follows redirects itself (the same ``RedirectFollower``), which
/// saves a hop through the chain for every request.
struct InterceptorChain: Sendable {
    let interceptors: [any RestingInterceptor]
    let networkInterceptors: [any RestingInterceptor]
    let transport: any HTTPClient
    /// Whether `transport` validates requests itself (see ``RequestValidatingHTTPClient``).
    let transportValidates: Bool

    func proceed(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        try await Self.run(interceptors, from: 0, request) { request in
            try await self.followRedirects(request, progress: progress)
        }
    }

    private func followRedirects(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws
        -> HTTPDataResponse
    {
        guard !networkInterceptors.isEmpty else { return try await send(request, progress: progress) }
        let follower = RedirectFollower(maximumRedirects: request.followsRedirects ? transport.maximumRedirects : 0)
        return try await follower.send(request) { hop in
            var hop = hop
            hop.followsRedirects = false
            return try await Self.run(networkInterceptors, from: 0, hop) { hop in
                try await self.send(hop, progress: progress)
            }
        }
    }

    private func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        var request = request
        CredentialBoundary.enforce(on: &request)
        // Our transports validate themselves (they are public entry points); this covers those that do not.
        if !transportValidates { try request.validate() }
        do {
            return try await transport.send(request, progress: progress)
        } catch is CancellationError {
            throw RestingError.cancelled
        }
    }

    /// Runs `interceptors[index...]`, then `end`.
    static func run(
        _ interceptors: [any RestingInterceptor], from index: Int, _ request: HTTPRequest,
        end: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        guard index < interceptors.count else { return try await end(request) }
        let step = ChainStep(interceptors: interceptors, index: index, end: end)
        defer { step.interceptorReturned() }
        return try await interceptors[index].intercept(request: request, execution: InterceptorExecution(step))
    }
}
