import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The producer's end of a streamed response body: how a transport hands the chunks it receives to the
/// ``/RestingCore/ResponseBodyStream`` its caller reads, with back-pressure.
///
/// When ``/RestingCore/HTTPRequest/responseStreaming`` is set, a transport returns as soon as the head has arrived,
/// with a body made by ``makeStream(bufferSize:onResume:onCancel:)``, then feeds it: ``yield(_:)`` each chunk; on
/// ``YieldResult/pause`` stop reading from the socket until `onResume` is called and offer the same chunk again; on
/// `onCancel` (the reader left) stop the transfer; end with ``finish(throwing:)``.
///
/// ```swift
/// let (body, feed) = ResponseBodyFeed.makeStream(
///     bufferSize: request.responseStreaming?.bufferSize ?? ResponseStreaming.defaultBufferSize,
///     onResume: { connection.resumeReading() }, onCancel: { connection.close() })
/// connection.onChunk = { chunk in feed.yield(chunk) == .accepted }
/// connection.onEnd = { error in feed.finish(throwing: error) }
/// return HTTPDataResponse(status: head.status, headers: head.headers, body: ResponseBody(body), url: request.url)
/// ```
///
/// A feed may be used from any thread, one call at a time.
public struct ResponseBodyFeed: Sendable {
    /// What happened to an offered chunk, and so what the producer does next.
    public enum YieldResult: Sendable, Equatable {
        /// The chunk was taken; keep going.
        case accepted
        /// The buffer is full and the chunk was **not** taken: stop reading, and offer the same chunk again once
        /// `onResume` is called.
        case pause
        /// The reader is gone: stop the transfer.
        case discarded
    }

    private let buffer: StreamBuffer

    /// Makes a stream and the feed that fills it.
    ///
    /// - Parameters:
    ///   - bufferSize: unread bytes past which ``yield(_:)`` answers ``YieldResult/pause``.
    ///   - onResume: called (from the reader's thread) when a paused producer may offer chunks again.
    ///   - onCancel: called once when the reader gives up before the body ended: stop the transfer.
    public static func makeStream(
        bufferSize: Int, onResume: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void
    ) -> (ResponseBodyStream, ResponseBodyFeed) {
        let buffer = StreamBuffer(limit: bufferSize, onResume: onResume, onCancel: onCancel)
        return (ResponseBodyStream(fedBy: buffer), ResponseBodyFeed(buffer: buffer))
    }

    /// Offers the next chunk of the body.
    @discardableResult
    public func yield(_ chunk: Data) -> YieldResult {
        switch buffer.offer(chunk) {
        case .accepted: .accepted
        case .pause: .pause
        case .discarded: .discarded
        }
    }

    /// Ends the body: `nil` when it arrived whole, or the error that cut it — the same ``/RestingCore/RestingError``
    /// a buffered call would fail with.
    public func finish(throwing error: RestingError? = nil) { buffer.finish(error) }

    /// Ends the body after `lastChunk`, which is taken even when the buffer is full: for a producer that gathers
    /// small reads into larger chunks and has one left when the transfer ends.
    public func finish(afterYielding lastChunk: Data, throwing error: RestingError? = nil) {
        buffer.finish(error, last: lastChunk)
    }

    /// Ends the body whole after `lastChunk`, with the fields that followed it (a chunked body's trailer section,
    /// HTTP/2's trailing headers), which the reader finds in ``/RestingCore/ResponseBodyStream/trailers``.
    public func finish(afterYielding lastChunk: Data = Data(), trailers: HTTPHeaderFields) {
        buffer.finish(nil, last: lastChunk, trailers: trailers)
    }
}
