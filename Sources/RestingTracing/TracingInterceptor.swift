#if Tracing
import RestingCore
import Tracing

/// Traces calls through swift-distributed-tracing: a span for each call, or for each exchange on the wire, with
/// OpenTelemetry's HTTP attributes, and the trace context sent on through the installed instrument (a W3C
/// `traceparent` with OpenTelemetry's propagator), so that the server's spans join the caller's trace.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: transport,
///     interceptors: [TracingInterceptor(.call), RetryInterceptor()],
///     networkInterceptors: [TracingInterceptor(.exchange)])
/// ```
///
/// Put the `.call` one among the application interceptors: its span (kind `internal`) covers the whole call,
/// retries, redirects and a token refresh included. Put the `.exchange` one among the network interceptors: it
/// starts a `client` span for every request that goes on the wire (each attempt and each redirect hop, as
/// OpenTelemetry's HTTP conventions ask) as a child of the call's span. Either alone works too.
///
/// The parent is the caller's `ServiceContext.current`, which reaches the pipeline for `perform` (its task inherits
/// the caller's task-locals) as for `send`. Each span is current for the rest of the chain, and the innermost one's
/// context is what the request carries (its fields replace any the request had). A span's attributes are
/// `http.request.method`, `server.address`, `server.port`, `url.full` (redacted), `http.response.status_code`,
/// `network.protocol.version` where the transport tells it, `http.request.resend_count` for a retry, and
/// `error.type` where the exchange ended in error (a failure's type, or a status of 400 or more, as the metrics and
/// swift-log integrations name it too), which also makes the span's status an error. A streamed response's span
/// ends when its body ends, not at its head.
public struct TracingInterceptor: RestingInterceptor, ExchangeObserver {
    /// What a span stands for.
    public enum Scope: Sendable {
        /// The whole call, once, among the application interceptors.
        case call
        /// One request on the wire, among the network interceptors.
        case exchange
    }

    /// What each span stands for.
    public let scope: Scope
    /// The tracer the spans come from: the bootstrapped `InstrumentationSystem.tracer` unless told otherwise.
    public let tracer: any Tracer
    /// What `url.full` hides.
    public let redaction: RedactionPolicy

    /// An interceptor starting a span per `scope` from `tracer`.
    public init(
        _ scope: Scope, tracer: any Tracer = InstrumentationSystem.tracer, redaction: RedactionPolicy = .default
    ) {
        self.scope = scope
        self.tracer = tracer
        self.redaction = redaction
    }

    /// Runs the rest of the chain inside a span, with the span's context sent on in the request's headers.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await observe(request) { try await execution($0) }
    }

    package func willSend(_ request: inout HTTPRequest) -> (any Span)? {
        let span = tracer.startSpan(
            request.method.rawValue, context: ServiceContext.current ?? .topLevel,
            ofKind: scope == .call ? .internal : .client)
        span.attributes.set(SemanticAttribute.server(of: request))
        span.attributes["url.full"] = redaction.url(request.url)
        if request.attributes.attempt > 1 {
            span.attributes["http.request.resend_count"] = request.attributes.attempt - 1
        }
        tracer.inject(span.context, into: &request.headers, using: HeaderInjector())
        return span
    }

    package func proceed(
        _ span: any Span, _ next: () async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        try await ServiceContext.$current.withValue(span.context) { try await next() }
    }

    /// A streamed response's span ends with its body; a reader leaving early is its choice, a body cut short the
    /// exchange failing.
    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ span: any Span) {
        span.attributes.set(ending.outcomeAttributes)
        if ending.errorType != nil { span.setStatus(SpanStatus(code: .error)) }
        if let error = ending.error { span.recordError(error) }
        span.end()
    }
}

extension SpanAttributes {
    /// OpenTelemetry's attributes, numbers kept as numbers.
    fileprivate mutating func set(_ attributes: [SemanticAttribute]) {
        for attribute in attributes {
            if case .number(let number) = attribute.value {
                self[attribute.key] = number
            } else {
                self[attribute.key] = attribute.text
            }
        }
    }
}

/// Puts an instrument's context into a request's headers, each key's value in place of any there was.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaderFields) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
#endif
