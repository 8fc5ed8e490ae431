#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends typed requests to one API: converts each request, runs it through the interceptors and the
/// transport, checks the status and decodes the body.
///
/// ```swift
/// let client = RestingClient(baseUrl: "https://api.example.com/v2", httpClient: URLSessionClient())
/// let post = try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["post_id": 1])).value.body
/// ```
///
/// A client is configured for one base URL; make one per API. It is immutable and safe to share.
public final class RestingClient: Sendable {
    public let baseUrl: String
    public let decoder: JSONDecoder
    public let httpClient: any HTTPClient
    public let requestConverter: any RequestConverter
    public let interceptors: [any RestingInterceptor]
    /// Statuses that resolve the promise; any other fails it with ``RestingError/httpError(_:)``.
    public let acceptedStatusCodes: Range<Int>
    /// How many calls may be in flight at once; the others wait in order.
    public let concurrency: ConcurrencyMode
    private let limiter: CallLimiter?
    let calls = CallRegistry()

    public init(
        baseUrl: String, decoder: JSONDecoder = JSONDecoder(), httpClient: any HTTPClient,
        requestConverter: any RequestConverter = RestingRequestConverter(),
        interceptors: [any RestingInterceptor] = [], acceptedStatusCodes: Range<Int> = 200..<300,
        concurrency: ConcurrencyMode = .unlimited
    ) {
        self.baseUrl = baseUrl
        self.decoder = decoder
        self.httpClient = httpClient
        self.requestConverter = requestConverter
        self.interceptors = interceptors
        self.acceptedStatusCodes = acceptedStatusCodes
        self.concurrency = concurrency
        limiter = concurrency.limit.map(CallLimiter.init(limit:))
    }

    /// Cancels every call of this client that has not settled, waiting or running; each fails with
    /// ``RestingError/cancelled``.
    public func cancelAll() { calls.cancelAll() }

    /// The transport's executor, on which every call's pipeline runs (see ``HTTPClient/executor``). Run
    /// request loops on it with `Task(executorPreference: client.executor)` to avoid a thread hop per request.
    public var executor: (any TaskExecutor)? { httpClient.executor }

    /// Bodies larger than this are decoded on the global executor rather than the transport's, so that a
    /// large decode never delays other transfers.
    static let decodeOffExecutorThreshold = 64 * 1024

    /// Starts the call and returns its promise: await `.value`, or chain handlers. Cancel it with
    /// `cancel()` on the promise or by cancelling the awaiting task.
    public func perform<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>
    ) -> ProgressablePromise<HTTPResponse<ResponseType>> {
        if let streamed = ResponseType.self as? any StreamingResponseBody.Type {
            return performStreaming(request, as: streamed)
        }
        return call { progress in
            let httpRequest = try self.requestConverter.toHTTPRequest(request, baseUrl: self.baseUrl)
            // A mock or a custom transport may answer with a stream even so: read it whole.
            let response = try await self.exchange(httpRequest, progress: progress).buffered()
            guard self.acceptedStatusCodes.contains(response.status) else {
                throw RestingError.httpError(HTTPError(response))
            }
            let body = try await self.decode(ResponseType.self, from: response.body)
            return HTTPResponse(
                status: response.status, headers: response.headers, body: body, url: response.url,
                metrics: response.metrics)
        }
    }

    /// Runs `work` as one call of this client: counted for ``cancelAll()``, held back by the concurrency
    /// limit, on the transport's executor.
    func call<Value: Sendable>(
        cancellationHooks: CancellationHooks? = nil,
        _ work: @escaping @Sendable (@escaping ProgressHandler) async throws -> Value
    ) -> ProgressablePromise<Value> {
        let id = calls.reserve()
        let promise = ProgressablePromise(executorPreference: executor, cancellationHooks: cancellationHooks) { progress in
            defer { self.calls.settle(id) }
            if let limiter = self.limiter { try await limiter.acquire() }
            defer { self.limiter?.release() }
            return try await work(progress)
        }
        calls.register(id, cancel: promise.cancel)
        return promise
    }

    /// Sends a converted request through the interceptors and the transport.
    func exchange(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        try await InterceptorChain(interceptors: interceptors, transport: httpClient).proceed(request, progress: progress)
    }

    private func decode<T: Decodable>(_ type: T.Type, from body: Data) async throws -> T {
        guard executor != nil, body.count > Self.decodeOffExecutorThreshold else {
            return try ResponseBodyDecoding.decode(type, from: body, decoder: decoder)
        }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try ResponseBodyDecoding.decode(type, from: body, decoder: self.decoder)
        }
    }

    /// The original RestingKit's name for calls that send a large body. Identical to ``perform(_:)``: every
    /// transport streams file and multipart bodies from disk, so there is no separate path (and no temporary
    /// file, which made the original's uploads impossible to retry).
    public func upload<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>
    ) -> ProgressablePromise<HTTPResponse<ResponseType>> {
        perform(request)
    }
}
