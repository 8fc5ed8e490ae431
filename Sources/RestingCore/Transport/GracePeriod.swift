/// A shutdown's deadline: calls `expire` once the grace period has passed, unless ``cancel()`` comes first (what
/// was waited for ended in time). A `nil` period never expires; a period of zero or less expires at once, here.
package struct GracePeriod: Sendable {
    private let timer: Task<Void, Never>?

    package init(_ period: Duration?, expire: @escaping @Sendable () -> Void) {
        guard let period else {
            timer = nil
            return
        }
        // Not in the timer's task: "no grace" means now, not once a thread of the global pool is free to start it —
        // which, in a process with a few hundred tasks in flight, was seen to take nine seconds.
        guard period > .zero else {
            timer = nil
            expire()
            return
        }
        timer = Task {
            // Of any size: `.seconds(Int64.max)`, which a caller may well pass to mean "wait for them", made the
            // plain `Task.sleep(for:)` trap.
            guard (try? await Task.sleep(forAnyDuration: period)) != nil else { return }
            expire()
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
