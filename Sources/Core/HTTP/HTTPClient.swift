/// The transport seam: performs one ``HTTPRequest`` and returns what the server answered.
///
/// RestingKit ships `URLSessionClient` (and a libcurl transport); write your own to reach another stack, or
/// use ``StubHTTPClient`` in tests. A transport never sees an `Endpoint`: path templates, encodings and
/// interceptors have all run before ``send(_:progress:)`` is called.
///
/// The contract every transport keeps:
/// - **Any status is a response.** Return a 404 or a 500 as an ``HTTPDataResponse``; throw only when no
///   response was received, as ``RestingError/transportFailed(_:)`` (keeping your stack's own error code).
/// - **Cancellation** of the calling task stops the transfer within milliseconds and throws
///   ``RestingError/cancelled``.
/// - **Progress** is reported through `progress` as bytes move, from any thread, cheaply.
/// - **Bodies** are read with ``RequestBody/makeReader()``, chunk by chunk; a retry calls `send` again with
///   the same request and the body is read again from the start.
/// - A setting the transport cannot honour fails with ``RestingError/unsupported(feature:transport:)``,
///   never silently.
///
/// A complete transport that answers every request from memory:
///
/// ```swift
/// struct TeapotClient: HTTPClient {
///     func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
///         try Task.checkCancellation()
///         let body = Data("I'm a teapot".utf8)
///         progress(TransferProgress(bytesReceived: Int64(body.count), totalBytesToReceive: Int64(body.count)))
///         return HTTPDataResponse(status: 418, headers: ["Content-Type": "text/plain"], body: body,
///                                 url: request.url)
///     }
/// }
/// let client = RestingClient(baseUrl: "https://example.com", httpClient: TeapotClient())
/// ```
///
/// Write a transport to change *how* bytes travel; to change *what* is sent or received (headers, retries,
/// logging, caching) write a ``RestingInterceptor`` instead.
public protocol HTTPClient: Sendable {
    /// Performs `request` and returns the response, whatever its status.
    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse

    /// The executor the transport drives its I/O on, if it has one. ``RestingClient`` runs each call's
    /// pipeline there, so that a finished transfer resumes its task without a thread hop.
    var executor: (any TaskExecutor)? { get }
}

extension HTTPClient {
    public var executor: (any TaskExecutor)? { nil }
}
