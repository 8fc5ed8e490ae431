/// Reports what happens to each request — started, response received (with its duration and the transport's
/// metrics on the response), failed — to a handler, for metrics and tracing. Give the same handler to
/// ``RetryInterceptor`` to see retries scheduled too.
///
/// ```swift
/// let events: @Sendable (RestingEvent) -> Void = { event in metrics.record(event) }
/// let interceptors: [any RestingInterceptor] = [EventMonitorInterceptor(events), RetryInterceptor(onEvent: events)]
/// ```
public struct EventMonitorInterceptor: RestingInterceptor {
    private let handler: @Sendable (RestingEvent) -> Void

    /// An interceptor reporting each call's events to `handler`, on the calling task.
    public init(_ handler: @escaping @Sendable (RestingEvent) -> Void) { self.handler = handler }

    /// Reports the start, then the response or the failure, with the time taken.
    public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        handler(.requestStarted(request))
        let started = ContinuousClock.now
        do {
            let response = try await execution(request)
            handler(.responseReceived(request, response, duration: ContinuousClock.now - started))
            return response
        } catch {
            handler(.failed(request, error, duration: ContinuousClock.now - started))
            throw error
        }
    }
}
