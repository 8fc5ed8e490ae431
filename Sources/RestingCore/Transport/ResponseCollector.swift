#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a transport does with a response body it reads whole, the same on every transport: keeps it in memory up to
/// a limit, or writes a download's 2xx body to its file (``DownloadTarget/Writer``); judges the ``MinimumTransferRate``; and
/// spaces out progress reports. A streamed body goes to its reader instead, and only the throttle applies.
///
/// A transport makes one per attempt, calls ``begin(status:headers:announcedLength:)`` when the final head has arrived,
/// ``append(_:)-(UnsafeRawBufferPointer)`` for each chunk, and ``finish(status:headers:)`` once the transfer
/// succeeded. It is used on one thread at a time (a transport's callback thread, or under its lock).
///
/// ```swift
/// var collector = ResponseCollector(request: request, maximumResponseSize: limit, minimumRate: .default)
/// try collector.begin(status: 200, headers: headers, announcedLength: 5)
/// try collector.append(chunk)
/// let body = try collector.finish(status: 200, headers: headers)
/// ```
package struct ResponseCollector {
    /// Where a download's body goes; `nil` for any other request.
    package let sink: DownloadTarget.Writer?
    /// The request's streaming settings, unless it is a download (whose body goes to its file, never to a reader).
    package let streaming: ResponseStreaming?
    /// The largest body kept in memory.
    package let maximumResponseSize: Int64
    /// The slowest a buffered body may arrive; `nil` for a streamed one, whose quiet spells are not a slow transfer.
    package let minimumRate: MinimumTransferRate?
    /// At most one progress report per interval.
    package static var progressInterval: Duration { .milliseconds(50) }

    private var body = Data()
    private var rateFloor: TransferRateFloor?
    private var lastProgressReport: MonotonicInstant?
    /// Whether ``begin(status:headers:announcedLength:)`` has run.
    package private(set) var hasBegun = false
    private let mayHaveBody: Bool

    /// A collector for the response to `request`.
    package init(request: HTTPRequest, maximumResponseSize: Int64, minimumRate: MinimumTransferRate?) {
        sink = request.downloadTarget.map(DownloadTarget.Writer.init)
        streaming = sink == nil ? request.responseStreaming : nil
        self.maximumResponseSize = maximumResponseSize
        self.minimumRate = streaming == nil ? minimumRate : nil
        rateFloor = self.minimumRate.map(TransferRateFloor.init)
        mayHaveBody = request.method != .head
    }

    /// The final head (status 200 or more) has arrived, announcing a body of `announcedLength` bytes (its
    /// `Content-Length`, which the transport read as the head arrived): decides where the body goes, refuses at once
    /// a body announced larger than the limit, and reserves memory for one of known length. Later calls do nothing.
    package mutating func begin(status: Int, headers: HTTPHeaderFields, announcedLength: Int64?) throws(RestingError) {
        guard !hasBegun else { return }
        hasBegun = true
        if try sink?.begin(status: status, headers: headers) == .file { return }
        guard streaming == nil, mayHaveBody, let announced = announcedLength, announced > 0 else { return }
        guard announced <= maximumResponseSize else { throw .responseTooLarge(limit: maximumResponseSize) }
        // One allocation rather than a regrowth (and a copy) at every doubling; a lying length costs at most 16 MiB.
        body.reserveCapacity(Int(min(announced, 16 * 1024 * 1024)))
    }

    /// Takes a chunk of a body read whole: to the download's file, or into memory within the limit.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) throws(RestingError) {
        if let sink, sink.destination == .file { return try sink.write(bytes) }
        guard Int64(body.count + bytes.count) <= maximumResponseSize else {
            throw .responseTooLarge(limit: maximumResponseSize)
        }
        body.append(contentsOf: bytes)
    }

    /// Takes a chunk of a body read whole (see ``append(_:)-(UnsafeRawBufferPointer)``).
    package mutating func append(_ data: Data) throws(RestingError) {
        var failure: RestingError?
        data.withUnsafeBytes { bytes in
            do throws(RestingError) { try append(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Records that `received` bytes of the response have arrived by `now`, and throws the minimum rate's
    /// failure (reported with the transport's error `domain` and `code`) once a whole window passed below it.
    package mutating func checkRate(received: Int64, at now: MonotonicInstant, domain: String, code: Int)
        throws(RestingError)
    {
        guard let minimumRate, rateFloor?.isTooSlow(received: received, at: now) == true else { return }
        throw minimumRate.failure(domain: domain, code: code)
    }

    /// Whether a progress report is due at `now`: at most one per ``progressInterval``, so that a fast transfer does
    /// not call the handler for every chunk. The transport reports the end regardless.
    package mutating func isProgressDue(at now: MonotonicInstant) -> Bool {
        if let lastProgressReport, now - lastProgressReport < Self.progressInterval { return false }
        lastProgressReport = now
        return true
    }

    /// Body bytes received so far, in memory or in the download's file.
    package var bytesReceived: Int64 { Int64(body.count) + (sink?.bytesWritten ?? 0) }

    /// The body, once the transfer succeeded: completes a download's file (whose body is then empty here).
    package mutating func finish(status: Int, headers: HTTPHeaderFields) throws(RestingError) -> Data {
        try sink?.finish(status: status, headers: headers)
        defer { body = Data() }
        return body
    }

    /// Closes a download's file after a failure or a cancellation.
    package func close() { sink?.close() }
}
