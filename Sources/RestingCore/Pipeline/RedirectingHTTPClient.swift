#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport used on its own, without a ``RestingClient``, that follows redirects under the chain's rules
/// (methods and bodies rewritten, credentials dropped across origins, the limit and loops) and validates each hop,
/// as the chain's last step does.
///
/// A transport performs one exchange; ``RestingClient`` follows redirects in its chain. Code that calls a
/// transport directly and wants redirects followed wraps it:
///
/// ```swift
/// let transport = RedirectingHTTPClient(CurlClient(), maximumRedirects: 5)
/// let response = try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }
/// ```
public struct RedirectingHTTPClient: HTTPClient {
    /// The transport each hop goes to.
    public let transport: any HTTPClient
    /// Redirects followed per request whose ``HTTPRequest/followsRedirects`` is set; 0 follows none.
    public let maximumRedirects: Int

    /// Wraps `transport`, following up to `maximumRedirects` redirects per request.
    public init(_ transport: any HTTPClient, maximumRedirects: Int = TransportDefaults.maximumRedirects) {
        self.transport = transport
        self.maximumRedirects = maximumRedirects
    }

    public var executor: (any TaskExecutor)? { transport.executor }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let follower = RedirectFollower(maximumRedirects: request.followsRedirects ? maximumRedirects : 0)
        return try await follower.send(request) { hop in
            var hop = hop
            try CredentialBoundary.enforce(on: &hop)
            try hop.validate()
            return try await transport.send(hop, progress: progress)
        }
    }

    /// Shuts the wrapped transport down.
    public func shutdown(gracePeriod: Duration?) async { await transport.shutdown(gracePeriod: gracePeriod) }

    /// Warms the wrapped transport's connections, with the fields of `headers` that may go to `url`'s origin.
    public func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields) async throws -> ConnectionWarmUp {
        try await transport.warmConnections(count, to: url, headers: CredentialBoundary.headers(headers, for: url))
    }
}
