import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Supplies the credential ``AuthInterceptor`` sends, and a new one when the server rejects it.
///
/// ```swift
/// struct TokenStore: CredentialProvider {
///     let session: SessionService
///     func credential() async throws -> String { "Bearer \(try await session.accessToken())" }
///     func refreshedCredential(after rejected: String) async throws -> String {
///         "Bearer \(try await session.refreshAccessToken())"
///     }
/// }
/// ```
public protocol CredentialProvider: Sendable {
    /// The header value to send, such as `Bearer abc`.
    func credential() async throws -> String
    /// A new header value after the server answered 401 to `rejected`; throw when none can be had.
    func refreshedCredential(after rejected: String) async throws -> String
}

/// A credential that never changes and cannot be refreshed.
struct FixedCredential: CredentialProvider {
    let value: String

    init(_ value: String) { self.value = value }

    func credential() async throws -> String { value }

    func refreshedCredential(after rejected: String) async throws -> String {
        throw RestingError.unsupported(feature: "refreshing a fixed credential", transport: "AuthInterceptor")
    }
}
