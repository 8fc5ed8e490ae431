import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The current credential, and at most one fetch or refresh of it in flight.
actor CredentialState {
    private let provider: any CredentialProvider
    private let onFailure: (@Sendable (any Error) async -> Void)?
    private var credential: String?
    private var pending: Task<String, any Error>?
    /// The credential whose refresh failed last: its 401s are final until the provider gives another.
    private var failedRefresh: String?

    init(provider: any CredentialProvider, onFailure: (@Sendable (any Error) async -> Void)?) {
        self.provider = provider
        self.onFailure = onFailure
    }

    func current() async throws -> String {
        if let credential { return credential }
        return try await settle(pending ?? Task { [provider] in try await provider.credential() })
    }

    func refresh(rejected: String) async throws -> String {
        if let credential, credential != rejected { return credential }  // already replaced by another refresh
        if let pending { return try await pending.value }
        guard rejected != failedRefresh else { throw RefreshAlreadyFailed() }
        do {
            let refreshed = try await settle(
                Task { [provider] in try await provider.refreshedCredential(after: rejected) })
            failedRefresh = nil
            return refreshed
        } catch {
            failedRefresh = rejected
            if credential == rejected { credential = nil }
            await onFailure?(error)
            throw error
        }
    }

    /// Waits for `task` as the one fetch in flight, and keeps its result.
    private func settle(_ task: Task<String, any Error>) async throws -> String {
        pending = task
        defer { if pending == task { pending = nil } }
        let value = try await task.value
        credential = value
        return value
    }
}

/// The refresh of this credential failed before; asking again would fail the same way.
struct RefreshAlreadyFailed: Error {}
