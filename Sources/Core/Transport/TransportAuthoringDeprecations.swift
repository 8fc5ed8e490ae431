#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What only transport authors use moved to RestingTransportKit, out of what `import RestingKit` shows an app. The
// names below keep compiling, deprecated; each forwards to what the new names use.

extension ResponseBodyStream {
    /// Makes a stream that a transport feeds through the returned ``Continuation``.
    @available(
        *, deprecated,
        message: "import RestingTransportKit and use ResponseBodyFeed.makeStream(bufferSize:onResume:onCancel:)"
    )
    public static func makeStream(
        bufferSize: Int, onResume: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void
    ) -> (ResponseBodyStream, Continuation) {
        let buffer = StreamBuffer(limit: bufferSize, onResume: onResume, onCancel: onCancel)
        return (ResponseBodyStream(fedBy: buffer), Continuation(buffer: buffer))
    }

    /// The producer's side of a stream made by ``makeStream(bufferSize:onResume:onCancel:)``.
    @available(
        *, deprecated, renamed: "ResponseBodyFeed", message: "import RestingTransportKit and use ResponseBodyFeed"
    )
    public struct Continuation: Sendable {
        /// What the producer does after offering a chunk.
        public enum YieldResult: Sendable, Equatable {
            /// The chunk was taken; keep going.
            case accepted
            /// The buffer is full and the chunk was **not** taken: offer it again once `onResume` is called.
            case pause
            /// The reader is gone: stop the transfer.
            case discarded
        }

        fileprivate let buffer: StreamBuffer

        /// Offers the next chunk of the body.
        @discardableResult
        public func yield(_ chunk: Data) -> YieldResult {
            switch buffer.offer(chunk) {
            case .accepted: .accepted
            case .pause: .pause
            case .discarded: .discarded
            }
        }

        /// Ends the body: `nil` when it arrived whole, or the error that cut it.
        public func finish(throwing error: RestingError? = nil) { buffer.finish(error) }

        /// Ends the body after `lastChunk`, which is taken even when the buffer is full.
        public func finish(afterYielding lastChunk: Data, throwing error: RestingError? = nil) {
            buffer.finish(error, last: lastChunk)
        }
    }
}

/// Writes a response body to a ``DownloadTarget``'s file as it arrives.
@available(
    *, deprecated, renamed: "DownloadFileWriter", message: "import RestingTransportKit and use DownloadFileWriter"
)
public final class DownloadSink {
    /// Where a response's body goes.
    public enum Destination: Sendable, Equatable {
        /// To the target's file (a 2xx body).
        case file
        /// Into memory like any response (any other status), so that errors keep their bodies.
        case memory
    }

    private let writer: DownloadTarget.Writer

    /// A sink writing the body of a response to `target`'s file.
    public init(_ target: DownloadTarget) { writer = DownloadTarget.Writer(target) }

    /// Where the body goes, and from which offset.
    public var target: DownloadTarget { writer.target }
    /// Where the body goes: the file for a 2xx, memory for any other status; `nil` before the head arrived.
    public var destination: Destination? { writer.destination.map(Self.destination) }
    /// Body bytes written to the file by this attempt.
    public var bytesWritten: Int64 { writer.bytesWritten }

    /// Decides where the body goes and, for a 2xx, opens the file at the target's offset.
    @discardableResult
    public func begin(status: Int, headers: HTTPHeaderFields) throws(RestingError) -> Destination {
        Self.destination(try writer.begin(status: status, headers: headers))
    }

    /// Appends `bytes` to the file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(RestingError) { try writer.write(bytes) }

    /// Appends `data` to the file.
    public func write(_ data: Data) throws(RestingError) { try writer.write(data) }

    /// Completes the file: a 2xx body with no bytes still creates it.
    public func finish(status: Int, headers: HTTPHeaderFields) throws(RestingError) {
        try writer.finish(status: status, headers: headers)
    }

    /// Closes the file, leaving what was written for a later resume.
    public func close() { writer.close() }

    private static func destination(_ destination: DownloadTarget.Writer.Destination) -> Destination {
        destination == .file ? .file : .memory
    }
}
