import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A streamed body read as lines of UTF-8 text, each yielded as soon as its terminator arrives.
///
/// LF, CRLF and a lone CR all end a line (one split between two chunks counts once); the terminator is not
/// part of the line; a last line without one is yielded at the end. A line longer than `maximumLineLength`
/// fails with ``StreamElementTooLarge``. Invalid UTF-8 becomes U+FFFD.
///
/// ```swift
/// let log = Endpoint<Nothing, ResponseLines>(.get, "/logs/tail", encoding: .query)
/// for try await line in try await client.perform(RestingRequest(endpoint: log)).value.body {
///     print(line)
/// }
/// // or from any stream: response.body.lines
/// ```
public struct ResponseLines: AsyncSequence, StreamingResponseBody {
    public typealias Element = String
    public typealias Failure = any Error

    private let stream: ResponseBodyStream
    /// The longest line accepted, in bytes; a longer one fails with ``StreamElementTooLarge``.
    public let maximumLineLength: Int

    /// 1 MiB.
    public static let defaultMaximumLineLength = 1024 * 1024

    /// The lines of `stream`.
    public init(_ stream: ResponseBodyStream, maximumLineLength: Int = Self.defaultMaximumLineLength) {
        self.stream = stream
        self.maximumLineLength = maximumLineLength
    }

    public init(streamedBody: StreamedBody) { self.init(streamedBody.stream) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var chunks: ResponseBodyStream.AsyncIterator
        fileprivate var splitter: LineSplitter
        fileprivate var ready = Batch<String>()
        fileprivate var isFinished = false

        public mutating func next() async throws -> String? {
            while true {
                if let line = ready.next() { return line }
                guard !isFinished else { return nil }
                guard let chunk = try await chunks.next() else {
                    isFinished = true
                    return splitter.finish().map { String(decoding: $0, as: UTF8.self) }
                }
                var lines: [String] = []
                do {
                    try splitter.append(chunk) { line in lines.append(String(decoding: line, as: UTF8.self)) }
                } catch {
                    // A line over its limit: the call ends failed with it, not cancelled as a reader leaving would.
                    chunks.fail(reading: error)
                    throw error
                }
                ready.replace(with: lines)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: stream.makeAsyncIterator(), splitter: LineSplitter(maximumLineLength: maximumLineLength))
    }

    /// Stops the body (see ``/RestingCore/ResponseBodyStream/cancel()``).
    public func cancel() { stream.cancel() }
}

extension ResponseBodyStream {
    /// This body as lines of text (see ``ResponseLines``).
    public var lines: ResponseLines { ResponseLines(self) }
}
