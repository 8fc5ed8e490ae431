extension Result where Failure == any Error {
    /// The outcome of an async throwing operation. Inlinable: the resilience links, in a module of their own, wrap
    /// every call in one, and an unspecialised async generic costs a call allocations and metadata lookups.
    @inlinable
    package init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
