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
/// `url.full` (redacted by ``redaction``), `http.response.status_code`, `error.type` for a failure, and
/// `network.protocol.version` and `resting.reused_connection` (where the transport tells them), `resting.duration_ms`,
/// `resting.attempt` (set by ``/RestingCore/RetryInterceptor``), `resting.cache_status` and
/// `http.response.body.size` (once a body has been read: a streamed body logs a second entry when it ends). The
/// levels follow what a service expects of a client: a successful exchange is `debug` (one per call is noise at
/// `info`), a 4xx `warning`, a 5xx or a failure `error`, a call the caller cancelled `debug`; the request itself,
/// with its headers redacted, is logged at `trace`. Change them with ``levels``.
///
/// A request whose ``/RestingCore/RequestAttributes/logLevel`` is `.none` is not logged. Placed among the network
/// interceptors, it logs each attempt and redirect hop; among the application interceptors, each call once.
public struct SwiftLogInterceptor: RestingInterceptor {
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
    public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        guard request.attributes.logLevel != LogLevel.none else { return try await execution(request) }
        let started = ContinuousClock.now
        let summary = "\(request.method) \(redaction.url(request.url))"
        if logger.logLevel <= levels.request {
            var sent = metadata(of: request)
            let headers = Dictionary(request.headers.map { ($0.name.lowercased(), redaction.value(ofHeader: $0)) }) {
                "\($0), \($1)"
            }
            sent["http.request.header"] = .dictionary(headers.mapValues { .string($0) })
            logger.log(level: levels.request, "→ \(summary)", metadata: sent)
        }
        var response: HTTPDataResponse
        do {
            response = try await execution(request)
        } catch {
            let cancelled = if case RestingError.cancelled = error { true } else { false }
            let level = cancelled ? levels.cancelled : levels.failure
            guard logger.logLevel <= level else { throw error }
            var metadata = metadata(of: request)
            metadata["resting.duration_ms"] = "\(Self.milliseconds(since: started))"
            if cancelled {
                logger.log(level: level, "✕ \(summary) cancelled", metadata: metadata)
            } else {
                metadata["error.type"] = .string(RestingError.errorType(of: error))
                logger.log(level: level, "✕ \(summary) failed: \(error)", metadata: metadata)
            }
            throw error
        }
        let level = level(of: response.status)
        guard logger.logLevel <= level || response.body.stream != nil else { return response }
        var metadata = metadata(of: request)
        metadata["http.response.status_code"] = "\(response.status)"
        metadata["resting.duration_ms"] = "\(Self.milliseconds(since: started))"
        if let cacheStatus = response.cacheStatus { metadata["resting.cache_status"] = .string(cacheStatus.rawValue) }
        if let version = response.metrics?.protocolVersion { metadata["network.protocol.version"] = .string(version) }
        if let reused = response.metrics?.reusedConnection { metadata["resting.reused_connection"] = "\(reused)" }
        if let data = response.body.data { metadata["http.response.body.size"] = "\(data.count)" }
        logger.log(level: level, "← \(response.status) \(summary)", metadata: metadata)
        if let stream = response.body.stream {
            response.body = ResponseBody(observe(stream, summary: summary, metadata: metadata, level: level))
        }
        return response
    }

    /// What every entry of an exchange carries.
    private func metadata(of request: HTTPRequest) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "http.request.method": .string(request.method.rawValue), "url.full": .string(redaction.url(request.url)),
        ]
        if request.attributes.attempt > 1 { metadata["resting.attempt"] = "\(request.attributes.attempt)" }
        return metadata
    }

    /// `stream`, counting its bytes as the reader takes them, and logging how it ended.
    private func observe(
        _ stream: ResponseBodyStream, summary: String, metadata: Logger.Metadata, level: Logger.Level
    ) -> ResponseBodyStream {
        let received = Locked<Int>(0)
        let started = ContinuousClock.now
        return stream.observed(
            onChunk: { chunk in received.withLock { $0 += chunk.count } },
            onEnd: { [logger, levels] error in
                var metadata = metadata
                metadata["http.response.body.size"] = "\(received.withLock { $0 })"
                metadata["resting.body_duration_ms"] = "\(Self.milliseconds(since: started))"
                switch error {
                case nil:
                    logger.log(level: level, "← \(summary) body ended", metadata: metadata)
                case .cancelled?:
                    // The reader left (a `break`, a cancelled task): its choice, not a failure.
                    logger.log(level: levels.cancelled, "← \(summary) body left", metadata: metadata)
                case let error?:
                    metadata["error.type"] = .string(RestingError.errorType(of: error))
                    logger.log(level: levels.failure, "✕ \(summary) body cut: \(error)", metadata: metadata)
                }
            })
    }

    private func level(of status: Int) -> Logger.Level {
        switch status {
        case ..<400: levels.success
        case 400..<500: levels.clientError
        default: levels.failure
        }
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        (ContinuousClock.now - start).wholeMilliseconds
    }
}
#endif
