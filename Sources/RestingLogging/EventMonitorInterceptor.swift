import RestingCore

/// Reports what happens to each request — started, response received (with its duration and the transport's
/// metrics on the response), failed — to a handler, for metrics and tracing.
///
/// ```swift
/// let events: @Sendable (RestingEvent) -> Void = { event in metrics.record(event) }
/// let interceptors: [any RestingInterceptor] = [EventMonitorInterceptor(events), RetryInterceptor()]
/// ```
///
/// A client's `CallEventListener` sees more (every stage of every call, retries scheduled and declined, a streamed
/// body's end) without an interceptor; this one reports what passes its own place in the chain.
public struct EventMonitorInterceptor: RestingInterceptor, ExchangeObserver {
    private let handler: @Sendable (RestingEvent) -> Void

    /// An interceptor reporting each call's events to `handler`, on the calling task.
    public init(_ handler: @escaping @Sendable (RestingEvent) -> Void) { self.handler = handler }

    /// Reports the start, then the response or the failure, with the time taken.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await observe(request) { try await execution($0) }
    }

    package func willSend(_ request: inout HTTPRequest) -> Void? {
        handler(.requestStarted(request))
        return ()
    }

    package func didReceive(_ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _: Void) {
        handler(.responseReceived(request, response, duration: elapsed))
    }

    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _: Void) {
        if case .failed(let error) = ending.outcome { handler(.failed(request, error, duration: ending.duration)) }
    }
}
