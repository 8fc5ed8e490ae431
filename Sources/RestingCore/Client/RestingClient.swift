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
/// A client is configured for one API; make one per API. It is safe to share: only its ``baseUrl`` can change,
/// and a call reads it once, when it starts.
///
/// **Two kinds of interceptors** (OkHttp's): `interceptors` run once per call, around everything — retries,
/// authentication, logging, mocks; `networkInterceptors` run once per exchange on the wire, after redirects
/// are decided — so they see every hop of a redirect (cookies, a cache, a header recomputed for the new origin).
///
/// ```swift
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [RetryInterceptor(), LoggingInterceptor()],
///                            networkInterceptors: [CookieInterceptor(jar: jar), HTTPCacheInterceptor(store: cache)])
/// ```
public final class RestingClient: Sendable {
    /// The URL every endpoint's path is relative to. Set it to switch environments at run time (GoodNetworking's
    /// base-URL provider): calls already started keep the URL they were converted with; later ones use the new.
    ///
    /// ```swift
    /// client.baseUrl = "https://staging.example.com/v2"
    /// ```
    public var baseUrl: String {
        get { currentBaseUrl.withLock { $0 } }
        set { currentBaseUrl.withLock { $0 = newValue } }
    }
    private let currentBaseUrl: Locked<String>
    /// Decodes response bodies, unless the endpoint has its own ``Endpoint/decoder``.
    public let decoder: JSONDecoder
    /// The transport every request goes through.
    public let httpClient: any HTTPClient
    /// Turns each ``RestingRequest`` into the ``HTTPRequest`` the chain receives.
    public let requestConverter: any RequestConverter
    /// Run once per call, in order on the way out and in reverse on the way back.
    public let interceptors: [any RestingInterceptor]
    /// Run once per exchange on the wire — for every hop of a redirect — after `interceptors`.
    public let networkInterceptors: [any RestingInterceptor]
    /// Statuses that resolve the promise (with those an endpoint accepts besides,
    /// ``Endpoint/additionalAcceptedStatusCodes``); any other fails it with the app's error type when its body is one
    /// (`errorBody`), else with ``RestingError/httpError(_:)``.
    public let acceptedStatusCodes: Range<Int>
    /// The API's error type, for the endpoints that name none (``Endpoint/decodingErrors(as:)``).
    let errorBody: ErrorBodyDecoding?
    /// How many calls may be in flight at once; the others wait in order.
    public let concurrency: ConcurrencyMode
    /// The most redirects one call follows (every hop through the ``networkInterceptors``); past it the call
    /// fails with ``TransportError/Kind/tooManyRedirects``. 0 returns 3xx responses as they are, as
    /// ``HTTPRequest/followsRedirects`` `false` does for one request.
    public let maximumRedirects: Int
    /// Who hears every call's events (``CallEvent``), if anyone: a call without a listener reports nothing and pays
    /// nothing for it.
    public let eventListener: EventListenerFactory?
    private let limiter: CallLimiter?
    package let calls = CallRegistry()
    private let chain: InterceptorChain

    /// A client for the API at `baseUrl`.
    ///
    /// - Parameters:
    ///   - baseUrl: Prefixed to every endpoint path that is not an absolute URL.
    ///   - decoder: Decodes response bodies, unless an endpoint brings its own.
    ///   - httpClient: The transport.
    ///   - requestConverter: Builds each ``HTTPRequest``; ``RestingRequestConverter`` by default.
    ///   - interceptors: Application interceptors, once per call, requests in order and responses in reverse.
    ///   - networkInterceptors: Interceptors for every exchange on the wire, redirect hops included.
    ///   - acceptedStatusCodes: Statuses decoded as a success; others fail with ``RestingError/httpError(_:)``, or
    ///     with `errorBody`.
    ///   - errorBody: The API's error type: the body of a response whose status is not accepted is decoded as it,
    ///     and the call throws that value (see ``HTTPErrorBody``) — on every path, `perform`, `send`, streams,
    ///     downloads, pages and replays; a body that is not one still throws ``RestingError/httpError(_:)``.
    ///   - concurrency: How many calls may be at the transport at once.
    ///   - maximumRedirects: Redirects followed per call; 0 follows none.
    ///   - eventListener: Hears each call's events, from its start to its end (``CallEventListener``).
    public init(
        baseUrl: String, decoder: JSONDecoder = JSONDecoder(), httpClient: any HTTPClient,
        requestConverter: any RequestConverter = RestingRequestConverter(),
        interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor] = [],
        acceptedStatusCodes: Range<Int> = 200..<300, errorBody: (any (Error & Decodable & Sendable).Type)? = nil,
        concurrency: ConcurrencyMode = .unlimited, maximumRedirects: Int = TransportDefaults.maximumRedirects,
        eventListener: EventListenerFactory? = nil
    ) {
        currentBaseUrl = Locked(baseUrl)
        self.decoder = decoder
        self.httpClient = httpClient
        self.requestConverter = requestConverter
        self.interceptors = interceptors
        self.networkInterceptors = networkInterceptors
        self.acceptedStatusCodes = acceptedStatusCodes
        self.errorBody = errorBody.map { ErrorBodyDecoding($0) }
        self.concurrency = concurrency
        limiter = concurrency.limit.map(CallLimiter.init(limit:))
        self.maximumRedirects = maximumRedirects
        self.eventListener = eventListener
        chain = InterceptorChain(
            interceptors: interceptors, networkInterceptors: networkInterceptors, transport: httpClient,
            maximumRedirects: maximumRedirects)
    }

    /// Why every call of this client fails at once, when one of its interceptors stands where its
    /// ``InterceptorPlacement`` forbids (a rate limit outside the retries it should pace, cookies behind the cache):
    /// checked when the client is made. `nil` for a client whose chain is in order.
    public var configurationError: RestingError? { chain.misplacement }

    /// Throws ``configurationError``, if any: not inlined, so that no frame of a waiting call holds its room.
    @inline(never)
    func refuseIfMisconfigured() throws {
        if let misplacement = chain.misplacement { throw misplacement }
    }

    /// Cancels every call of this client that has not settled, waiting or running; each fails with
    /// ``RestingError/cancelled``.
    public func cancelAll() { calls.cancelAll() }

    /// Stops this client in an orderly way: from the moment it is called every new call fails with
    /// ``RestingError/shutDown``; the calls already made run to their end — or, once `gracePeriod` has passed, are
    /// cancelled as ``cancelAll()`` cancels them — and then it returns. `nil` waits for as long as they take.
    ///
    /// ```swift
    /// await client.shutdown(gracePeriod: .seconds(10))
    /// await transport.shutdown()  // then the transport, once no client uses it
    /// ```
    ///
    /// The transport is not shut down: several clients may share one. Shut it down after the last of them, with
    /// ``HTTPClient/shutdown(gracePeriod:)``, or make it with a scoped form that does (`CurlClient.withCurlClient`).
    /// A call has ended when its promise settles: a streamed body still being read is the transport's to wait for.
    /// Called from inside one of this client's calls (an interceptor's kill switch), it waits for every other call,
    /// not for the one it is called from (nor the calls that one was made inside), which the grace period does not
    /// cancel either: that call goes on once the shutdown returns. The calls then waiting for a slot of the
    /// concurrency limit fail with ``RestingError/shutDown``: the slot they wait for may be the one the call shutting
    /// down holds until the shutdown returns.
    public func shutdown(gracePeriod: Duration? = nil) async {
        if let limiter, calls.isInsideARunningCall { limiter.refuseWaiting(with: .shutDown) }
        await calls.shutDown(gracePeriod: gracePeriod)
    }

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
    ) -> ProgressablePromise<RestingResponse<ResponseType>> {
        perform(request, baseUrl: nil, continuing: nil)
    }

    /// ``perform(_:)`` for a call that continues or replays another (a page, an offline entry): converted
    /// against the base URL that call had (`nil`: the client's when the call starts), then `continuing` adjusts
    /// the converted request (the next page's URL) — its ``HTTPRequest/credentialOrigin`` stays the converted
    /// one's unless `continuing` moves it on purpose.
    package func perform<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String?,
        continuing: (@Sendable (inout HTTPRequest) -> Void)? = nil
    ) -> ProgressablePromise<RestingResponse<ResponseType>> {
        if let streamed = request.endpoint.responseReading.streaming {
            return performStreaming(request, as: streamed, baseUrl: baseUrl, continuing: continuing)
        }
        return call(Call(self, request, baseUrl: baseUrl, continuing: continuing), ending: DecodedResponse())
    }

    /// How a call of `endpoint` judges its response's status, and what it throws for one it does not accept.
    package func statusCheck<RequestType, ResponseType>(for endpoint: Endpoint<RequestType, ResponseType>)
        -> StatusCheck
    {
        StatusCheck(
            accepted: acceptedStatusCodes, alsoAccepted: endpoint.additionalAcceptedStatusCodes,
            errorBody: endpoint.errorBody ?? errorBody, decoder: endpoint.decoder ?? decoder)
    }

    /// Starts `call` in a task of its own, ending as `ending` says, and returns its promise: counted for
    /// ``cancelAll()``, held back by the concurrency limit, on the transport's executor.
    package func call<RequestType, ResponseType, Ending: CallEnding>(
        _ call: consuming Call<RequestType, ResponseType>, ending: Ending, cancellationHooks: CancellationHooks? = nil
    ) -> ProgressablePromise<Ending.Value>
    where Ending.RequestType == RequestType, Ending.ResponseType == ResponseType {
        if let misplacement = chain.misplacement { return ProgressablePromise { _ in throw misplacement } }
        guard let id = calls.reserve() else { return ProgressablePromise { _ in throw RestingError.shutDown } }
        let channel = ProgressChannel()
        let events = eventReporter(for: id)
        // Consumed into the closure: neither this function nor its caller then destroys a copy, which code generic
        // over the call's types does through the runtime's metadata, looked up first.
        let call = consume call
        // One closure from the task's start to the call's stages, which are inlined into it: a call waiting for its
        // response holds every frame between (the Performance article, "What a waiting call holds").
        // Without a concurrency limit the task starts as the call (see `CallRegistry.starting`); with one, the call
        // joins once it holds its slot.
        let limited = limiter != nil
        func start() -> ProgressablePromise<Ending.Value> {
            ProgressablePromise(channel: channel, executor: executor, cancellationHooks: cancellationHooks) {
                [self] in
                defer {
                    calls.settle(id)
                    channel.close()
                }
                return try await run(id, events: events, member: limited) {
                    try await call.respond(ending, CallContext(progress: channel.send, events: events))
                }
            }
        }
        let promise = limited ? start() : calls.starting(id, start)
        calls.register(id, cancel: promise.cancel)
        return promise
    }

    /// What every call does around its work, whichever task runs it: waits for a slot of the concurrency limit,
    /// runs as call `id` of the registry (unless `member` is false: a task the call was started in as that, with
    /// ``CallRegistry/starting(_:_:)``), and reports a failure as the call's end.
    ///
    /// Inlined, and what it does besides awaiting in helpers that are not: a call waiting for its response holds
    /// every frame between its task's start and the transport (the Performance article, "What a waiting call
    /// holds"); `CallFootprintTests` measure it.
    @inline(__always)
    func run<Value>(
        _ id: UInt64, events: CallEventReporter?, member: Bool = true, _ work: () async throws -> Value
    ) async throws -> Value {
        do {
            if let limiter { try await acquireSlot(of: limiter, events: events) }
            defer { limiter?.release() }
            return try await member ? calls.running(id, work) : work()
        } catch {
            throw Self.ending(by: error, events: events)
        }
    }

    /// Waits for a slot of `limiter`, and reports how long that took.
    @inline(never)
    private func acquireSlot(of limiter: CallLimiter, events: CallEventReporter?) async throws {
        let asked = ContinuousClock.now
        try await limiter.acquire()
        events?.report(.concurrencySlotAcquired(waited: .now - asked))
    }

    /// What a call that failed with `error` throws (``RestingError/cancelled`` for a cancellation), its end reported.
    @inline(never)
    private static func ending(by error: any Error, events: CallEventReporter?) -> any Error {
        let error = error is CancellationError ? RestingError.cancelled : error
        events?.fail(error)
        return error
    }

    /// Call `id`'s reporter, when the client has a listener; the call has started.
    func eventReporter(for id: UInt64) -> CallEventReporter? {
        guard let eventListener else { return nil }
        let events = CallEventReporter(callID: id, listener: eventListener.make(id))
        events.report(.callStarted)
        return events
    }

    /// Runs `work` once the concurrency limit has a slot for it, and frees the slot after.
    func holdingASlot<Value>(events: CallEventReporter?, _ work: () async throws -> Value) async throws -> Value {
        if let limiter { try await acquireSlot(of: limiter, events: events) }
        defer { limiter?.release() }
        return try await work()
    }

    /// How many calls wait for a slot of the concurrency limit (for tests).
    var queuedCount: Int { limiter?.queuedCount ?? 0 }

    /// `request` through the interceptors, the redirect link and the transport: the response, whatever its status.
    /// On its caller's executor, the call's: only a call's task calls it.
    nonisolated(nonsending) package func exchange(_ request: HTTPRequest, progress: @escaping ProgressHandler)
        async throws -> HTTPDataResponse
    {
        try await chain.proceed(request, progress: progress)
    }

    /// Whether a body of `byteCount` bytes is decoded on the call's executor: small, or no executor to keep free.
    func decodesAtOnce(_ byteCount: Int) -> Bool { executor == nil || byteCount <= Self.decodeOffExecutorThreshold }

    /// `body` decoded as `type`, off the transport's executor when it is large.
    func decode<T: Decodable & Sendable>(
        _ type: T.Type, from body: Data, decoder: JSONDecoder, reading: ResponseReading, envelope: EnvelopeReading<T>?
    ) async throws -> T {
        guard !decodesAtOnce(body.count) else {
            return try ResponseBodyDecoding.decode(
                type, from: body, decoder: decoder, reading: reading, envelope: envelope)
        }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try ResponseBodyDecoding.decode(type, from: body, decoder: decoder, reading: reading, envelope: envelope)
        }
    }

    /// The original RestingKit's name for calls that send a large body, a second name for ``perform(_:)``: every
    /// transport streams file and multipart bodies from disk, so there is no separate path (and no temporary
    /// file, which made the original's uploads impossible to retry).
    @available(*, deprecated, renamed: "perform(_:)", message: "every call streams its body from disk: use perform")
    public func upload<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>
    ) -> ProgressablePromise<RestingResponse<ResponseType>> {
        perform(request)
    }
}
