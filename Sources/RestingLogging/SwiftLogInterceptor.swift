#if Logging
import Logging
import RestingCore

/// Logs every exchange to a swift-log `Logger`, as structured metadata rather than lines of text, so that a
/// service's log pipeline can filter and aggregate RestingKit's calls like its own.
///
/// ```swift
/// let client = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: transport,
///     interceptors: [RetryInterceptor(), SwiftLogInterceptor(logger: Logger(label: "api-client"))])
/// ```
///
/// Each exchange logs one entry when it ends, with OpenTelemetry's attribute names as keys: `http.request.method`,
/// `url.full` (redacted by ``redaction``), `http.response.status_code`, `error.type` where the exchange ended in
/// error (a failure's type, `cancelled` included, or a status of 400 or more, as the metrics and tracing integrations
/// name it too), `network.protocol.version` and `resting.reused_connection` (where the transport tells them),
/// `resting.duration_ms`, `resting.attempt` (set by ``/RestingCore/RetryInterceptor``), `resting.cache_status` and
/// `http.response.body.size` (once a body has been read: a streamed body logs a second entry when it ends). The
/// levels follow what a service expects of a client: a successful exchange is `debug` (one per call is noise at
/// `info`), a 4xx `warning`, a 5xx or a failure `error`, a call the caller cancelled `debug`; the request itself,
/// with its headers redacted, is logged at `trace`. Change them with ``levels``.
///
/// A request whose ``RestingCore/RequestAttributes/logLevel`` is `.none` is not logged. Placed among the network
/// interceptors, it logs each attempt and redirect hop; among the application interceptors, each call once.
public struct SwiftLogInterceptor: RestingInterceptor, ExchangeObserver {
    /// The level of each kind of entry.
    public struct Levels: Sendable {
        /// A request as it is sent, with its headers (redacted); default `trace`.
        public var request: Logger.Level = .trace
        /// A response with a status below 400; default `debug`.
        public var success: Logger.Level = .debug
        /// A response with a status from 400 to 499; default `warning`.
        public var clientError: Logger.Level = .warning
        /// A response with a status of 500 or more, or a failure to get one; default `error`.
        public var failure: Logger.Level = .error
        /// A call its caller cancelled, or a streamed body its reader left early; default `debug`.
        public var cancelled: Logger.Level = .debug

        /// The defaults described above.
        public init() {}
    }

    /// Where the entries go.
    public var logger: Logger
    /// The level of each kind of entry.
    public var levels: Levels
    /// What is hidden: credentials in the URL's query and in header values.
    public var redaction: RedactionPolicy

    /// An interceptor logging to `logger`.
    public init(logger: Logger, levels: Levels = Levels(), redaction: RedactionPolicy = .default) {
        self.logger = logger
        self.levels = levels
        self.redaction = redaction
    }

    /// Logs the request, passes it on, and logs the response or the failure.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await observe(request) { try await execution($0) }
    }

    /// An exchange being logged: its first line, and what every entry of it carries.
    package typealias Observation = (summary: String, metadata: Logger.Metadata)

    package func willSend(_ request: inout HTTPRequest) -> Observation? {
        guard request.attributes.logLevel != LogLevel.none else { return nil }
        let url = redaction.url(request.url)
        let summary = "\(request.method) \(url)"
        var metadata: Logger.Metadata = ["http.request.method": "\(request.method)", "url.full": "\(url)"]
        if request.attributes.attempt > 1 { metadata["resting.attempt"] = "\(request.attributes.attempt)" }
        if logger.logLevel <= levels.request {
            let headers = Dictionary(request.headers.map { ($0.name.lowercased(), redaction.value(ofHeader: $0)) }) {
                "\($0), \($1)"
            }
            var sent = metadata
            sent["http.request.header"] = .dictionary(headers.mapValues { .string($0) })
            logger.log(level: levels.request, "→ \(summary)", metadata: sent)
        }
        return (summary, metadata)
    }

    package func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ exchange: Observation
    ) {
        var metadata = metadata(exchange, response, after: elapsed, errorType: response.errorType)
        if let data = response.body.data { metadata["http.response.body.size"] = "\(data.count)" }
        logger.log(level: level(of: response.status), "← \(response.status) \(exchange.summary)", metadata: metadata)
    }

    /// A failure before a response, or a streamed body's end; a body in memory was logged with its head.
    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ exchange: Observation) {
        guard ending.response == nil || ending.streamed else { return }
        let summary = exchange.summary
        let headElapsed = ending.headElapsed
        var metadata = metadata(
            exchange, ending.response, after: headElapsed ?? ending.duration, errorType: ending.errorType)
        if let headElapsed {
            metadata["resting.body_duration_ms"] = "\((ending.duration - headElapsed).wholeMilliseconds)"
            metadata["http.response.body.size"] = "\(ending.bodyBytes)"
        }
        switch ending.outcome {
        case .failed(RestingError.cancelled):
            logger.log(level: levels.cancelled, "✕ \(summary) cancelled", metadata: metadata)
        case .failed(let error):
            logger.log(level: levels.failure, "✕ \(summary) failed: \(error)", metadata: metadata)
        case .completed:
            logger.log(level: level(of: ending.response?.status ?? 0), "← \(summary) body ended", metadata: metadata)
        case .bodyLeft:
            // The reader left (a `break`, a cancelled task): its choice, not a failure.
            logger.log(level: levels.cancelled, "← \(summary) body left", metadata: metadata)
        case .bodyFailed(let error):
            logger.log(level: levels.failure, "✕ \(summary) body cut: \(error)", metadata: metadata)
        }
    }

    /// What every entry about an exchange's outcome carries, `elapsed` after its start.
    private func metadata(
        _ exchange: Observation, _ response: HTTPDataResponse?, after elapsed: Duration, errorType: String?
    ) -> Logger.Metadata {
        var metadata = exchange.metadata
        for attribute in SemanticAttribute.outcome(of: response, errorType: errorType) {
            metadata[attribute.key] = "\(attribute.text)"
        }
        metadata["resting.duration_ms"] = "\(elapsed.wholeMilliseconds)"
        metadata["resting.cache_status"] = response?.cacheStatus.map { "\($0.rawValue)" }
        metadata["resting.reused_connection"] = response?.metrics?.reusedConnection.map { "\($0)" }
        return metadata
    }

    private func level(of status: Int) -> Logger.Level {
        switch status {
        case ..<400: levels.success
        case 400..<500: levels.clientError
        default: levels.failure
        }
    }
}
#endif
