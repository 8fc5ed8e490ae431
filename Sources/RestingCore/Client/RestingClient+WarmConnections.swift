#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingClient {
    /// Opens `count` connections to the base URL's origin before the first calls, through ``httpClient``: see
    /// ``HTTPClient/warmConnections(_:to:headers:)``, which this calls with the base URL. The warm-up is the
    /// transport's housekeeping, not a call of the app: it passes none of the client's interceptors, and of
    /// `headers` only the fields the credential boundary lets go to the base URL's origin (a cookie bound to
    /// another site stays behind).
    ///
    /// ```swift
    /// let client = RestingClient(baseUrl: "https://api.example.com/v2", httpClient: try CurlClient())
    /// try await client.warmConnections(4)
    /// ```
    @discardableResult
    public func warmConnections(_ count: Int, headers: HTTPHeaderFields = [:]) async throws -> ConnectionWarmUp {
        guard let url = URL(string: baseUrl) else {
            throw RestingError.invalidURL(RedactionPolicy.default.address(baseUrl), reason: "the base URL is not a URL")
        }
        return try await httpClient.warmConnections(
            count, to: url, headers: CredentialBoundary.headers(headers, for: url))
    }
}
