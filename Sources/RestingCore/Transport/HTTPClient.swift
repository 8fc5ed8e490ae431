#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transport seam: performs one exchange — one ``HTTPRequest``, one response head, one body — and returns
/// what the server answered.
///
/// RestingKit ships `URLSessionClient` and `CurlClient`; write your own to reach another stack, or use
/// `StubHTTPClient` (RestingTesting) in tests. A transport never sees an `Endpoint`: path templates, encodings
/// and interceptors have all run before ``send(_:progress:)`` is called, the request has been validated
/// (``HTTPRequest/validate()``) and its credentials checked against its origin. Redirects are not the
/// transport's business: ``RestingClient`` follows them in its chain, hop by hop, so a transport returns a 3xx
/// like any other status. To use a transport on its own, wrap it in ``RedirectingHTTPClient``.
///
/// The contract every transport keeps:
/// - **Any status is a response.** Return a 404 or a 500 as an ``HTTPDataResponse``; throw only when no
///   response was received, as ``RestingError/transportFailed(_:)`` (keeping your stack's own error code).
/// - **Cancellation** of the calling task stops the transfer within milliseconds and throws
///   ``RestingError/cancelled``.
/// - **Progress** is reported through `progress` as bytes move, from any thread, cheaply.
/// - **Bodies** are read with ``RequestBody/makeReader()``, chunk by chunk; a retry calls `send` again with
///   the same request and the body is read again from the start (a single-pass ``RequestBodySequence`` then fails
///   with ``RestingError/requestBodyNotReplayable``). An async sequence's reader blocks while its producer has nothing:
///   read it on a thread of the transport's own, or with `await` through ``RequestBody/collect(upTo:)``.
/// - A setting the transport cannot honour fails with ``RestingError/unsupported(feature:transport:)``,
///   never silently.
/// - **Streamed responses.** When ``HTTPRequest/responseStreaming`` is set, return as soon as the head (status
///   and headers) has arrived, with a streamed ``HTTPDataResponse/body`` (a ``ResponseBodyStream`` made with
///   `ResponseBodyFeed.makeStream(bufferSize:onResume:onCancel:)` of RestingTransportKit, the module for transport
///   authors): yield each chunk as it arrives; on `.pause` stop reading from the socket until `onResume`, or
///   else bound memory another way and document it; on `onCancel` (the reader left) stop the transfer; end the
///   body with `finish()` or with the same ``RestingError`` a buffered call would fail with. ``HTTPRequest/timeout``
///   then bounds the head only, and a minimum transfer rate does not apply. A transport that cannot stream may
///   return the whole body as usual: ``RestingClient`` hands it to the reader from memory.
/// - **Downloads.** When ``HTTPRequest/downloadTarget`` is set, write a 2xx body to its file through
///   RestingTransportKit's `DownloadFileWriter` (which also refuses a resumed body that does not continue the partial
///   file) and return the response without it; any other status keeps its body in memory, as an error page must.
///
/// Why one `send` for both: a streamed response still passes the whole interceptor chain as a value, so that
/// authentication, retries, validation and logging judge its head before the caller reads a byte, while the
/// buffered path — the default, and most calls — stays exactly as cheap (one ``ResponseBody``, holding bytes or a
/// stream, never both). A stream is a single-pass sequence owned by whoever holds the response: dropping it stops the
/// transfer, as closing OkHttp's `ResponseBody` does, and there is no `Data` body to forget to close.
///
/// A complete transport that answers every request from memory (the conformance kit drives one like it, through
/// the chain, redirects included):
///
/// ```swift
/// struct TeapotClient: HTTPClient {
///     func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
///         try Task.checkCancellation()
///         let body = Data("I'm a teapot".utf8)
///         progress(TransferProgress(bytesReceived: Int64(body.count), totalBytesToReceive: Int64(body.count)))
///         return HTTPDataResponse(status: 418, headers: ["Content-Type": "text/plain"], body: ResponseBody(body),
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

    /// Stops the transport in an orderly way: from the moment it is called every new ``send(_:progress:)`` fails
    /// with ``RestingError/shutDown``; exchanges in flight (a streamed body included) run to their end, or, once
    /// `gracePeriod` has passed, are cancelled and fail with ``RestingError/cancelled``; then whatever the transport
    /// holds — threads, handles, connections — is released, and the call returns. `nil` waits for as long as the
    /// exchanges take. Calling it again, or from several tasks, waits for the same shutdown.
    ///
    /// ```swift
    /// let transport = try CurlClient()
    /// // … the app's calls …
    /// await transport.shutdown(gracePeriod: .seconds(5))  // what still runs gets five seconds, then is cancelled
    /// ```
    ///
    /// A transport that holds nothing needs no shutdown: the default does nothing.
    func shutdown(gracePeriod: Duration?) async

    /// Opens `count` connections to `url`'s origin before the calls that will need them, so that DNS, TCP and TLS
    /// are paid at start-up rather than by the first calls; each is then kept idle for as long as the transport's
    /// pool and the server allow. See ``ConnectionWarmUp`` for what it reports, and `CurlClient`'s for how it warms.
    /// Throws ``RestingError/unsupported(feature:transport:)`` where the transport cannot open a connection ahead of
    /// a call (the default, and `URLSessionClient`), a validation error for a URL no call could use, and
    /// ``RestingError/shutDown`` once shut down.
    @discardableResult
    func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields) async throws -> ConnectionWarmUp
}

extension HTTPClient {
    public var executor: (any TaskExecutor)? { nil }

    /// Holds nothing to release.
    public func shutdown(gracePeriod: Duration?) async {}

    /// ``shutdown(gracePeriod:)``, waiting for the exchanges in flight for as long as they take.
    public func shutdown() async { await shutdown(gracePeriod: nil) }

    /// Cannot open a connection ahead of a call: fails with ``RestingError/unsupported(feature:transport:)``.
    @discardableResult
    public func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields = [:]) async throws
        -> ConnectionWarmUp
    {
        throw RestingError.unsupported(feature: "warming connections", transport: "\(Self.self)")
    }
}
