import RestingCore

/// What happens to a call, as ``EventMonitorInterceptor`` reports it.
public enum RestingEvent: Sendable {
    /// A call is about to be sent.
    case requestStarted(HTTPRequest)
    /// A response came back (any status), with the time since the request started and the transport's metrics.
    case responseReceived(HTTPRequest, HTTPDataResponse, duration: Duration)
    /// A call failed after `duration`.
    case failed(HTTPRequest, any Error, duration: Duration)
}
