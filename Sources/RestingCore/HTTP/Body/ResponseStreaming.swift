/// Asks the transport to hand the response up as soon as its head (status and headers) has arrived, with the
/// body as a ``ResponseBodyStream`` read chunk by chunk, instead of buffering it whole.
///
/// Set on ``HTTPRequest/responseStreaming`` by ``RestingClient`` for endpoints whose response type streams
/// (``ResponseBodyStream``, `ResponseLines`, `JSONLines`, `ServerSentEvents`); interceptors and transports
/// read it. While it is set:
/// - ``HTTPRequest/timeout`` bounds the wait for the head only; a body may flow for as long as it keeps moving
///   (the transport's idle timeout applies between chunks, never while the reader is the slow one);
/// - the transport's minimum transfer rate does not apply (an event stream may be quiet for a long time);
/// - at most ``bufferSize`` bytes wait unread: past that, the transport stops reading from the socket (or,
///   where it cannot, says how it bounds memory in its documentation) until the reader catches up.
///
/// ```swift
/// var request = request
/// request.responseStreaming = ResponseStreaming(bufferSize: 64 * 1024)
/// ```
public struct ResponseStreaming: Sendable, Equatable {
    /// How many unread bytes may wait between the transport and the reader.
    public var bufferSize: Int

    /// Streams with at most `bufferSize` unread bytes waiting (at least 1).
    public init(bufferSize: Int = Self.defaultBufferSize) {
        self.bufferSize = max(1, bufferSize)
    }

    /// 256 KiB: sixteen of libcurl's reads, enough to keep a fast network busy while the reader works.
    public static let defaultBufferSize = 256 * 1024
}
