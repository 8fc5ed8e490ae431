import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Logs every exchange that passes through it, with secrets redacted.
///
/// ```swift
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport,
///                            interceptors: [AuthInterceptor(...), LoggingInterceptor(level: .verbose)])
/// ```
///
/// A request's ``RestingCore/RequestAttributes/logLevel`` overrides `level` for that call (quiet for a polled endpoint,
/// verbose for the one being debugged — Harbor's `debugType`).
///
/// Place it last to log requests as they are sent (after other interceptors changed them). At `.verbose`,
/// requests and responses print as trees with headers and bodies; JSON is pretty-printed; bodies are cut
/// past `bodyLimit` bytes; files and streams are shown as their size, never read. ``/RestingCore/RedactionPolicy/default``
/// hides credentials in headers, query parameters, forms and JSON keys unless you pass another policy, and
/// a body it cannot parse (plain text, XML, binary) is described by its size and type, not printed.
public struct LoggingInterceptor: RestingInterceptor, ExchangeObserver {
    /// How much is logged, unless a request's ``RestingCore/RequestAttributes/logLevel`` says otherwise.
    public var level: LogLevel
    /// Where messages go.
    public var logger: any RestingLogger
    /// What is hidden from the messages.
    public var redaction: RedactionPolicy
    /// Bytes of a body shown at `.verbose` before it is cut.
    public var bodyLimit: Int

    /// A logging interceptor; every parameter has the default described above.
    public init(
        level: LogLevel = .info, logger: any RestingLogger = StandardErrorLogger(),
        redaction: RedactionPolicy = .default, bodyLimit: Int = 4096
    ) {
        self.level = level
        self.logger = logger
        self.redaction = redaction
        self.bodyLimit = bodyLimit
    }

    /// Logs the request, passes it on, and logs the response or failure with the time taken.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        try await observe(request) { try await execution($0) }
    }

    /// An exchange being logged: its first line, and the level it is logged at.
    package typealias Observation = (summary: String, level: LogLevel)

    package func willSend(_ request: inout HTTPRequest) -> Observation? {
        let level = request.attributes.logLevel ?? level
        guard level > .none else { return nil }
        let summary = "\(request.method) \(redaction.url(request.url))"
        if level >= .verbose {
            logger.log(
                level: .verbose,
                message: tree("→ \(summary)", request.headers, body(of: request.body, headers: request.headers)))
        }
        return (summary, level)
    }

    package func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ exchange: Observation
    ) {
        let cache = response.cacheStatus.map { ", cache \($0.rawValue)" } ?? ""
        let line = "← \(response.status) \(exchange.summary) (\(elapsed.wholeMilliseconds) ms\(cache))"
        if exchange.level >= .verbose {
            let shown = response.body.data.map { body(of: .bytes($0), headers: response.headers) } ?? "<streamed body>"
            logger.log(level: .verbose, message: tree(line, response.headers, shown))
        } else if exchange.level >= .info || !response.isSuccessful {
            logger.log(level: response.isSuccessful ? .info : .error, message: line)
        }
    }

    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ exchange: Observation) {
        let (summary, bytes, elapsed) = (exchange.summary, ending.bodyBytes, "\(ending.duration.wholeMilliseconds) ms")
        switch ending.outcome {
        case .failed(let error):
            logger.log(level: .error, message: "✕ \(summary) failed after \(elapsed): \(error)")
        case .bodyFailed(let error):
            logger.log(level: .error, message: "✕ \(summary) body cut after \(bytes) bytes (\(elapsed)): \(error)")
        case .completed where ending.streamed && exchange.level >= .info:
            logger.log(level: .info, message: "← \(summary) body ended: \(bytes) bytes (\(elapsed))")
        case .bodyLeft where exchange.level >= .info:
            // The reader left (a `break`, a cancelled task): its choice, not a failure.
            logger.log(level: .info, message: "← \(summary) body left after \(bytes) bytes (\(elapsed))")
        case .completed, .bodyLeft:
            break
        }
    }

    private func tree(_ title: String, _ headers: HTTPHeaderFields, _ body: String?) -> String {
        var lines = ["┌ \(title)"]
        if !headers.isEmpty {
            lines.append("├ Headers")
            lines += headers.map { "│   \($0.name): \(redaction.value(ofHeader: $0))" }
        }
        if let body {
            lines.append("└ Body")
            lines += body.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
        } else {
            lines.append("└ No body")
        }
        return lines.joined(separator: "\n")
    }

    /// The body as it should be shown, or `nil` when there is none. What the policy cannot redact is
    /// described, never printed.
    private func body(of body: RequestBody, headers: HTTPHeaderFields) -> String? {
        switch body.source {
        case .empty:
            return nil
        case .bytes(let data):
            guard !data.isEmpty else { return nil }
            let contentType = headers["Content-Type"]
            guard let text = redaction.printableBody(data, contentType: contentType, prettyPrinted: true) else {
                return
                    "<\(data.count)-byte \(contentType ?? "body") not shown: only JSON and form bodies can be redacted>"
            }
            guard text.utf8.count > bodyLimit else { return text }
            return String(decoding: text.utf8.prefix(bodyLimit), as: UTF8.self)
                + "… (\(text.utf8.count - bodyLimit) more bytes)"
        case .file(let url):
            return "<file \(url.lastPathComponent), \(body.contentLength.map { "\($0) bytes" } ?? "size unknown")>"
        case .stream, .sequence:
            return "<streamed body, \(body.contentLength.map { "\($0) bytes" } ?? "length unknown")>"
        }
    }
}

/// The original RestingKit's name for ``LoggingInterceptor``, a second name for it.
@available(*, deprecated, renamed: "LoggingInterceptor")
public typealias RequestResponseLoggingInterceptor = LoggingInterceptor

package enum LogLevelKey: PersistentRequestAttributeKey {
    package static let defaultValue: LogLevel? = nil
    package static let name = "resting.logLevel"
}

extension RequestAttributes {
    /// The level ``LoggingInterceptor`` logs this request at, in place of its own; default `nil` (its own).
    public var logLevel: LogLevel? {
        get { self[LogLevelKey.self] }
        set { self[LogLevelKey.self] = newValue }
    }
}
