import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds a credential to every request and, when the server answers 401, refreshes it once for all the
/// requests that were rejected at the same time, then sends each of them once more.
///
/// - **Single flight:** however many requests get a 401 together, the provider refreshes once; requests
///   rejected with a credential that has already been replaced use the new one without another refresh.
/// - **No loops:** a request is retried once; a second 401 is returned as the response.
/// - **Failure:** when the refresh throws, `onAuthenticationFailure` is called (once per failed refresh —
///   Harbor's `authFailed`) and the 401 is returned. The rejected credential is remembered: later 401s to
///   it are returned at once, without asking the provider again, and the next call asks the provider for its
///   ``CredentialProvider/credential()`` afresh (the app may have signed in again meanwhile).
/// - **Skips what needs none:** a request whose ``/RestingCore/RequestAttributes/requiresAuthentication`` is `false` (the
///   token endpoint, so that it works on the same client) is passed on untouched.
/// - **Never leaks:** the header is marked sensitive (``/RestingCore/HTTPHeaderFields/Field/isSensitive``), whatever its name, so
///   a redirect to another origin drops it and logs, cURL descriptions and recordings hide it.
///
/// ```swift
/// let auth = AuthInterceptor(provider: TokenStore(session: session)) { error in await session.signOut() }
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, interceptors: [auth])
/// ```
public struct AuthInterceptor: PlacedInterceptor {
    /// The header that carries the credential: `Authorization` by default.
    public let headerName: String
    private let state: CredentialState

    /// An interceptor that asks `provider` for the credential, refreshes it once on a 401, and calls
    /// `onAuthenticationFailure` when the refresh fails.
    public init(
        provider: any CredentialProvider, headerName: String = "Authorization",
        onAuthenticationFailure: (@Sendable (any Error) async -> Void)? = nil
    ) {
        self.headerName = headerName
        state = CredentialState(provider: provider, onFailure: onAuthenticationFailure)
    }

    /// HTTP Basic authentication with fixed credentials (Malibu's `authenticate(username:password:)`). A fixed
    /// password has nothing to refresh: a `401` is one exchange, and the caller gets it as any unaccepted status (the
    /// API's error type, or ``/RestingCore/RestingError/httpError(_:)``); the same password is not sent again.
    public static func basic(username: String, password: String) -> AuthInterceptor {
        AuthInterceptor(
            provider: FixedCredential("Basic " + Data("\(username):\(password)".utf8).base64EncodedString()))
    }

    /// A fixed bearer token (Malibu's `authenticate(bearerToken:)`).
    public static func bearer(token: String) -> AuthInterceptor {
        AuthInterceptor(provider: FixedCredential("Bearer " + token))
    }

    /// Adds the credential, and on a 401 refreshes it once (shared with concurrent calls) and retries.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        guard request.attributes.requiresAuthentication else { return try await execution(request) }
        let credential = try await state.current()
        var authorized = request
        authorized.headers.replaceOrAdd(name: headerName, value: credential, sensitive: true)
        let response = try await execution(authorized)
        guard response.status == 401, let refreshed = try? await state.refresh(rejected: credential) else {
            return response
        }
        authorized.headers.replaceOrAdd(name: headerName, value: refreshed, sensitive: true)
        return try await execution(authorized)
    }
}

extension AuthInterceptor {
    /// Rank 0 of the credentials and cache order, with cookies: an HTTP cache after it keys what it stores on the
    /// credential it adds (see ``/RestingCore/InterceptorPlacement``).
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "credentials and cache", rank: 0, list: .either, name: "AuthInterceptor")
    }
}
