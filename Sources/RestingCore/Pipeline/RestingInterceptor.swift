/// A step of every call's pipeline, between the request converter and the transport: it sees each request
/// on the way out and each response on the way back, and may change either, answer by itself, retry or
/// recover.
///
/// `execution(request)` runs the rest of the chain — the next interceptors, then the transport — and returns
/// its response. Call it once to pass the request on, zero times to answer without the network (a mock, a
/// cache), or several times to retry; the body is read again from the start each time. Every status is a
/// response here: the 2xx check happens after the chain, so interceptors can act on a 401 or a 503.
///
/// Interceptors run in array order on the way out and in reverse on the way back. Progress reported by the
/// transport reaches the caller whatever the interceptors do.
///
/// An interceptor that adds a header, and one that logs:
///
/// ```swift
/// struct DeviceIdInjector: RestingInterceptor {
///     let deviceId: String
///     func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
///         var request = request
///         request.headers["device-id"] = deviceId
///         return try await execution(request)
///     }
/// }
///
/// struct LogInterceptor: RestingInterceptor {
///     func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
///         print("sending request \(request)")        // credentials are redacted
///         let response = try await execution(request)
///         print("got response \(response.status)")
///         return response
///     }
/// }
///
/// let client = RestingClient(baseUrl: "https://example.com", httpClient: transport,
///                            interceptors: [DeviceIdInjector(deviceId: "42"), LogInterceptor()])
/// ```
///
/// Calling `execution` after `intercept` has returned (from an escaped task) is a bug that fails with
/// ``RestingError/interceptorMisuse(interceptor:reason:)`` naming the interceptor.
///
/// The requirement is `nonisolated(nonsending)`: an interceptor runs on the executor of the call that reaches it,
/// and the chain hops to no other executor and back around it. One written `func intercept(…) async throws`, as
/// above, conforms as it is.
public protocol RestingInterceptor: Sendable {
    /// Handles one request: change it, pass it on with `execution(request)` (as often as needed), answer it without
    /// passing it on, or turn the outcome into another.
    nonisolated(nonsending) func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
}

extension RestingInterceptor {
    /// The original RestingKit's name for the rest of the chain, a second name for ``InterceptorExecution``.
    @available(*, deprecated, renamed: "InterceptorExecution")
    public typealias Execution = InterceptorExecution
}

/// The rest of the interceptor chain, as handed to ``RestingInterceptor/intercept(request:execution:)``.
public struct InterceptorExecution: Sendable {
    /// What the execution runs: a closure (a test's fake chain), or the client's chain, without a closure.
    private enum Next: Sendable {
        case closure(@Sendable (HTTPRequest) async throws -> HTTPDataResponse)
        case step(ChainRun, index: Int)
    }

    private let next: Next

    /// A chain that answers with `proceed`: what a test hands to an interceptor to run it alone (RestingTesting's
    /// `FakeChain` builds one for you).
    ///
    /// ```swift
    /// let execution = InterceptorExecution { request in HTTPDataResponse(status: 200, url: request.url) }
    /// let response = try await DeviceIdInjector(deviceId: "42").intercept(request: request, execution: execution)
    /// ```
    public init(_ proceed: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse) {
        next = .closure(proceed)
    }

    /// The rest of the client's chain after step `index` of `run`.
    init(_ run: ChainRun, _ index: Int) { next = .step(run, index: index) }

    /// Sends `request` through the remaining interceptors and the transport.
    nonisolated(nonsending) public func callAsFunction(_ request: HTTPRequest) async throws -> HTTPDataResponse {
        switch next {
        case .closure(let proceed): try await proceed(request)
        case .step(let run, let index): try await run.descending(after: index).step(index + 1, request)
        }
    }
}
