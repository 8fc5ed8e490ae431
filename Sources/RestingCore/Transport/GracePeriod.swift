/// A shutdown's deadline: calls `expire` once the grace period has passed, unless ``cancel()`` comes first (what
/// was waited for ended in time). A `nil` period never expires.
package struct GracePeriod: Sendable {
    private let timer: Task<Void, Never>?

    package init(_ period: Duration?, expire: @escaping @Sendable () -> Void) {
        timer = period.map { period in
            Task {
                guard (try? await Task.sleep(for: period)) != nil else { return }
                expire()
            }
        }
    }

    package func cancel() { timer?.cancel() }
}

extension HTTPClient {
    /// `body(self)`, then ``shutdown(gracePeriod:)`` whether `body` returned or threw: the scoped forms of the
    /// transports (`CurlClient.withCurlClient`, `URLSessionClient.withURLSessionClient`).
    package func shuttingDown<Result>(
        gracePeriod: Duration?, isolation: isolated (any Actor)? = #isolation, after body: (Self) async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await body(self)
            await shutdown(gracePeriod: gracePeriod)
            return result
        } catch {
            await shutdown(gracePeriod: gracePeriod)
            throw error
        }
    }
}
