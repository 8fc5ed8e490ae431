/// Runs a request through the application interceptors, in order, then follows redirects (`RedirectFollower`),
/// sending each hop through the network interceptors and the transport. Every request that reaches the transport
/// passes the ``CredentialBoundary`` and is validated there, once: the transport performs one exchange.
///
/// A class, made once per client: every frame of the chain that a waiting call holds refers to it with one pointer
/// instead of carrying its 64 bytes.
package final class InterceptorChain: Sendable {
    let interceptors: [any RestingInterceptor]
    let networkInterceptors: [any RestingInterceptor]
    let transport: any HTTPClient
    /// Redirects followed per call (see ``RestingClient/maximumRedirects``).
    let maximumRedirects: Int
    /// What every call fails with when a ``PlacedInterceptor`` stands out of its place: the client refuses its calls
    /// before they start (``RestingClient/call(_:ending:cancellationHooks:)``, ``RestingClient/inCallingTask(_:)``).
    let misplacement: RestingError?

    init(
        interceptors: [any RestingInterceptor], networkInterceptors: [any RestingInterceptor],
        transport: any HTTPClient, maximumRedirects: Int
    ) {
        self.interceptors = interceptors
        self.networkInterceptors = networkInterceptors
        self.transport = transport
        self.maximumRedirects = maximumRedirects
        misplacement = InterceptorPlacement.misplacement(
            interceptors: interceptors, networkInterceptors: networkInterceptors)
    }

    func proceed(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        // Without interceptors, no closure: every call waits here for its response, holding this frame.
        guard !interceptors.isEmpty else { return try await followRedirects(request, progress: progress) }
        return try await ChainRun.start(interceptors, from: 0, request) { request in
            try await self.followRedirects(request, progress: progress)
        }
    }

    /// Runs `interceptors`, in order, then `end`: what an interceptor made of others (a capability's composed links)
    /// runs them with, each held to the chain's rules like a client's own.
    package static func runComposed(
        _ interceptors: [any RestingInterceptor], _ request: HTTPRequest,
        end: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        try await ChainRun.start(interceptors, from: 0, request, end: end)
    }

    private func followRedirects(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws
        -> HTTPDataResponse
    {
        let follower = RedirectFollower(maximumRedirects: request.followsRedirects ? maximumRedirects : 0)
        // `run` over no interceptors would do the same, at the cost of an escaping closure per hop: most clients
        // have no network interceptors, and every call takes this path.
        guard !networkInterceptors.isEmpty else {
            return try await follower.send(request) { hop in try await self.send(hop, progress: progress) }
        }
        return try await follower.send(request) { hop in
            try await ChainRun.start(networkInterceptors, from: 0, hop) { hop in
                try await self.send(hop, progress: progress)
            }
        }
    }

    private func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let request = try Self.boundaryChecked(request)
        do {
            // Observed in a frame of its own: a call without a listener does not hold one.
            if request.events != nil { return try await observed(request, progress: progress) }
            return try await transport.send(request, progress: progress)
        } catch is CancellationError {
            throw RestingError.cancelled
        }
    }

    @inline(never)
    private func observed(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse
    {
        guard let events = request.events else { return try await transport.send(request, progress: progress) }
        return try await events.observeExchange(request) { request in
            do {
                return try await transport.send(request, progress: progress)
            } catch is CancellationError {
                throw RestingError.cancelled
            }
        }
    }

    /// `request` past the ``CredentialBoundary``, validated, with the time its call's deadline leaves it as its
    /// timeout. Not inlined into ``send(_:progress:)``, whose frame is held while the transport works.
    @inline(never)
    private static func boundaryChecked(_ request: HTTPRequest) throws -> HTTPRequest {
        var request = request
        try CredentialBoundary.enforce(on: &request)
        if let limits = request.exchangeDeadline {
            // Often the request's own (shorter than the time left): then its fields are not copied to set it again.
            let timeout = try limits.timeout(for: request)
            if timeout != request.timeout { request.timeout = timeout }
        }
        try request.validate()
        return request
    }
}
