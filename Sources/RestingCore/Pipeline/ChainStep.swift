import Synchronization

/// One interceptor's place in a pass through the chain: the rest of the chain its execution runs, and whether the
/// interceptor has returned — after which calling that execution is a misuse. One object per interceptor and pass
/// is all the chain allocates for it.
final class ChainStep: Sendable {
    private let interceptors: [any RestingInterceptor]
    private let index: Int
    private let end: @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    /// An atomic rather than a lock: set once, read on each call of the execution, possibly from an escaped task.
    private let hasReturned = Atomic<Bool>(false)

    init(
        interceptors: [any RestingInterceptor], index: Int,
        end: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    ) {
        self.interceptors = interceptors
        self.index = index
        self.end = end
    }

    /// Runs the interceptors after this one, then the end of the chain.
    nonisolated(nonsending) func proceed(_ request: HTTPRequest) async throws -> HTTPDataResponse {
        guard !hasReturned.load(ordering: .acquiring) else {
            throw RestingError.interceptorMisuse(
                interceptor: String(describing: type(of: interceptors[index])),
                reason: "called execution after intercept(request:execution:) had returned")
        }
        return try await InterceptorChain.run(interceptors, from: index + 1, request, end: end)
    }

    func interceptorReturned() { hasReturned.store(true, ordering: .releasing) }
}
