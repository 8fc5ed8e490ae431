import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a response body to a ``/RestingCore/DownloadTarget``'s file as it arrives: where a transport decides
/// whether a body goes to the file, checks that a resumed body continues the partial file, and writes.
///
/// When ``/RestingCore/HTTPRequest/downloadTarget`` is set, a transport makes one writer per attempt, calls
/// ``begin(status:headers:)`` once the status and headers are known (at the latest when the transfer ends),
/// ``write(_:)-(Data)`` for each chunk while it returned ``Destination/file`` (other chunks go into the response's
/// body as usual, so an error keeps its page), and ``finish(status:headers:)`` on success or ``close()`` otherwise.
/// A writer is used on one thread at a time.
///
/// ```swift
/// let writer = request.downloadTarget.map(DownloadFileWriter.init)
/// if try writer?.begin(status: head.status, headers: head.headers) == .file {
///     try writer?.write(chunk)
/// }
/// ```
public final class DownloadFileWriter {
    /// Where a response's body goes.
    public enum Destination: Sendable, Equatable {
        /// To the target's file (a 2xx body).
        case file
        /// Into memory like any response (any other status), so that errors keep their bodies.
        case memory
    }

    private let writer: DownloadTarget.Writer

    /// A writer of the body of a response to `target`'s file.
    public init(_ target: DownloadTarget) { writer = DownloadTarget.Writer(target) }

    /// Where the body goes, and from which offset.
    public var target: DownloadTarget { writer.target }
    /// Where the body goes: the file for a 2xx, memory for any other status; `nil` before the head arrived.
    public var destination: Destination? { writer.destination.map(Self.destination) }
    /// Body bytes written to the file by this attempt.
    public var bytesWritten: Int64 { writer.bytesWritten }

    /// Decides where the body goes and, for a 2xx, opens the file at the target's offset. Throws
    /// ``/RestingCore/RestingError/resumeRefused(_:)`` when a resumed download gets anything but its continuation,
    /// and ``/RestingCore/RestingError/downloadFailed(reason:)`` when the file cannot be opened: stop the transfer
    /// and fail with that error.
    @discardableResult
    public func begin(status: Int, headers: HTTPHeaderFields) throws(RestingError) -> Destination {
        Self.destination(try writer.begin(status: status, headers: headers))
    }

    /// Appends `bytes` to the file; ``/RestingCore/RestingError/responseTooLarge(limit:)`` past the target's
    /// maximum size.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(RestingError) { try writer.write(bytes) }

    /// Appends `data` to the file; ``/RestingCore/RestingError/responseTooLarge(limit:)`` past the target's maximum
    /// size.
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
