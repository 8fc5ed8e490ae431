extension Result where Failure == any Error {
    /// The outcome of an async throwing operation. Inlinable: the resilience links, in a module of their own, wrap
    /// every call in one, and an unspecialised async generic costs a call allocations and metadata lookups. Both it
    /// and `body` run on the caller's executor: a link's wrap costs no hop to another executor and back.
    @inlinable
    nonisolated(nonsending) package init(catching body: nonisolated(nonsending) () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
