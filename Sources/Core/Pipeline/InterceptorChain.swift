/// Runs a request through the interceptors, in order, and then the transport.
struct InterceptorChain: Sendable {
    let interceptors: [any RestingInterceptor]
    let transport: any HTTPClient

    func proceed(
        _ request: HTTPRequest, from index: Int = 0, progress: @escaping ProgressHandler
    ) async throws -> HTTPDataResponse {
        guard index < interceptors.count else {
            // Our transports validate too (they are public entry points); this covers those that do not.
            try request.validate()
            do {
                return try await transport.send(request, progress: progress)
            } catch is CancellationError {
                throw RestingError.cancelled
            }
        }
        let interceptor = interceptors[index]
        let interceptorType = type(of: interceptor)
        let hasReturned = Locked(false)
        let execution = InterceptorExecution { next in
            guard !hasReturned.withLock({ $0 }) else {
                throw RestingError.interceptorMisuse(
                    interceptor: String(describing: interceptorType),
                    reason: "called execution after intercept(request:execution:) had returned")
            }
            return try await proceed(next, from: index + 1, progress: progress)
        }
        defer { hasReturned.withLock { $0 = true } }
        return try await interceptor.intercept(request: request, execution: execution)
    }
}
