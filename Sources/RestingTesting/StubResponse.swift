import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A canned answer of ``StubHTTPClient``.
public struct StubResponse: Sendable {
    /// The status code answered.
    public var status: Int
    /// The headers answered.
    public var headers: HTTPHeaderFields
    /// The body answered.
    public var body: Data
    /// How long to wait before answering; cancellation ends the wait.
    public var delay: Duration?
    /// Thrown instead of answering.
    public var error: RestingError?
    /// Set by ``stream(_:status:headers:)``: the body arrives in these steps instead of as ``body``.
    public var chunks: [Chunk]?

    /// An answer with this status, headers and body, after `delay`, or the `error` instead.
    public init(
        status: Int = 200, headers: HTTPHeaderFields = [:], body: Data = Data(), delay: Duration? = nil,
        error: RestingError? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.error = error
    }

    /// A response with the given status and an optional body.
    public static func status(_ status: Int, headers: HTTPHeaderFields = [:], body: Data = Data()) -> StubResponse {
        StubResponse(status: status, headers: headers, body: body)
    }

    /// `value` encoded as JSON, with `Content-Type: application/json`.
    public static func json(
        _ value: some Encodable, status: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(status: status, headers: ["Content-Type": "application/json"], body: try encoder.encode(value))
    }

    /// A failure instead of a response, such as a timeout.
    public static func failure(_ error: RestingError) -> StubResponse { StubResponse(error: error) }

    /// `text` as UTF-8, with the given content type.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> StubResponse
    {
        StubResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// A fixture file's bytes, read now; a missing file is ``/RestingCore/RestingError/bodyUnreadable(reason:)``.
    public static func file(_ url: URL, status: Int = 200, contentType: String = "application/json")
        throws(RestingError) -> StubResponse
    {
        StubResponse(
            status: status, headers: ["Content-Type": contentType],
            body: try RequestBody.file(url).collectSynchronously())
    }

    /// The same response, answered after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}

extension StubResponse {
    /// Answers `request` as this canned response says: waits, fails, or returns the response, reporting
    /// progress like a transport.
    package func serve(_ request: HTTPRequest, bodyLength sent: Int64, progress: ProgressHandler) async throws
        -> HTTPDataResponse
    {
        try await waitForDelay()
        return try await deliver(request, bodyLength: sent, progress: progress)
    }

    /// Answers `request` now: throws ``error`` or returns the response, reporting progress like a transport.
    /// A download's 2xx body goes to its target's file, as a transport's would. A streamed request gets its
    /// body as a stream (``chunks`` played out in time); a buffered one waits for all the chunks.
    package func deliver(
        _ request: HTTPRequest, bodyLength sent: Int64, idleTimeout: Duration? = nil, maximumResponseSize: Int64 = .max,
        progress: ProgressHandler
    ) async throws -> HTTPDataResponse {
        if let error { throw error }
        if request.responseStreaming != nil, request.downloadTarget == nil {
            progress(
                TransferProgress(bytesSent: sent, totalBytesToSend: sent, bytesReceived: 0, totalBytesToReceive: nil))
            return HTTPDataResponse(
                status: status, headers: headers, body: ResponseBody(makeBodyStream(idleTimeout: idleTimeout)),
                url: request.url)
        }
        var body = body
        if chunks != nil {
            body = try await makeBodyStream(idleTimeout: idleTimeout).collect(upTo: Int(clamping: maximumResponseSize))
        }
        let length = Int64(body.count)
        if let target = request.downloadTarget {
            let sink = DownloadTarget.Writer(target)
            if try sink.begin(status: status, headers: headers) == .file {
                try sink.write(body)
                body = Data()
            }
            try sink.finish(status: status, headers: headers)
        }
        progress(
            TransferProgress(
                bytesSent: sent, totalBytesToSend: sent, bytesReceived: length, totalBytesToReceive: length))
        return HTTPDataResponse(status: status, headers: headers, body: ResponseBody(body), url: request.url)
    }

    /// Waits out ``delay``; cancellation ends the wait with ``/RestingCore/RestingError/cancelled``.
    package func waitForDelay() async throws {
        if let delay {
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw RestingError.cancelled
            }
        }
        guard !Task.isCancelled else { throw RestingError.cancelled }
    }

    /// The error for a request nothing was registered for, listing what was: `no <noun> for <request>; …`.
    package static func noMatch(_ noun: String, for request: String, registered: [String], domain: String)
        -> RestingError
    {
        let list = registered.isEmpty ? "none" : registered.joined(separator: ", ")
        return .transportFailed(
            TransportError(
                kind: .other, code: 0, domain: domain, message: "no \(noun) for \(request); registered: \(list)"))
    }
}

/// Canned responses served in order, the last one repeating, with a count of the calls.
package final class ResponseSequence: Sendable {
    private let state = Locked((responses: [StubResponse](), calls: 0))

    package init(_ responses: [StubResponse] = []) { append(responses) }

    package func append(_ responses: [StubResponse]) { state.withLock { $0.responses += responses } }

    /// The next response, or `nil` when none was registered.
    package func next() -> StubResponse? {
        state.withLock { state in
            guard let first = state.responses.first else { return nil }
            state.calls += 1
            if state.responses.count > 1 { state.responses.removeFirst() }
            return first
        }
    }

    package var callCount: Int { state.withLock { $0.calls } }
}
