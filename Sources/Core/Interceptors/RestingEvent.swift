/// What happens to a call, as interceptors report it (see ``EventMonitorInterceptor`` and ``RetryInterceptor``).
public enum RestingEvent: Sendable {
    /// A call is about to be sent.
    case requestStarted(HTTPRequest)
    /// A response came back (any status), with the time since the request started and the transport's metrics.
    case responseReceived(HTTPRequest, HTTPDataResponse, duration: Duration)
    /// A call failed after `duration`.
    case failed(HTTPRequest, any Error, duration: Duration)
    /// ``RetryInterceptor`` will send the request again (`attempt` counts from 1) after `delay`.
    case retryScheduled(HTTPRequest, attempt: Int, delay: Duration)
}
