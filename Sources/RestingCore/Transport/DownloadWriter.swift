#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DownloadTarget {
    /// Writes a response body to the target's file as it arrives: the one place where transports decide whether a
    /// body goes to the file, check that a resumed body continues the partial file, and write. Transport authors
    /// reach it as RestingTransportKit's `DownloadFileWriter`, which documents the protocol.
    package final class Writer {
        /// Where a response's body goes.
        package enum Destination: Sendable, Equatable {
            /// To the target's file (a 2xx body).
            case file
            /// Into memory like any response (any other status), so that errors keep their bodies.
            case memory
        }

        /// Where the body goes, and from which offset.
        package let target: DownloadTarget
        /// Where the body goes: the file for a 2xx, memory for any other status; `nil` before the head arrived.
        package private(set) var destination: Destination?
        /// Body bytes written to the file by this attempt.
        package private(set) var bytesWritten: Int64 = 0
        private var descriptor: Int32 = -1

        /// A writer of the body of a response to `target`'s file.
        package init(_ target: DownloadTarget) { self.target = target }

        deinit { close() }

        /// Decides where the body goes and, for a 2xx, opens the file at the target's offset. Throws
        /// ``RestingError/resumeRefused(_:)`` when a resumed download gets anything but its continuation, and
        /// ``RestingError/downloadFailed(reason:)`` when the file cannot be opened; the transport then stops.
        @discardableResult
        package func begin(status: Int, headers: HTTPHeaderFields) throws(RestingError) -> Destination {
            if let destination { return destination }
            guard (200..<300).contains(status) else {
                destination = .memory
                return .memory
            }
            let validator = PartialDownloadRecord.validator(of: headers)
            if target.offset > 0 {
                if let expected = target.validator, let validator, validator != expected {
                    throw .resumeRefused(.fileChanged)
                }
                guard status == 206 else { throw .resumeRefused(.rangeIgnored(status: status)) }
                let contentRange = headers["Content-Range"] ?? ""
                guard ContentRange.firstByte(of: contentRange) == target.offset else {
                    throw .resumeRefused(.rangeMismatch(expectedStart: target.offset, contentRange: contentRange))
                }
            }
            try open()
            if target.offset == 0 { recordValidator(validator) }
            destination = .file
            return .file
        }

        /// Appends `bytes` to the file.
        package func write(_ bytes: UnsafeRawBufferPointer) throws(RestingError) {
            guard descriptor >= 0 else { return }
            guard target.offset + bytesWritten + Int64(bytes.count) <= target.maximumSize else {
                throw .responseTooLarge(limit: target.maximumSize)
            }
            guard FileIO.write(descriptor, bytes) else { throw failure("cannot write") }
            bytesWritten += Int64(bytes.count)
        }

        /// Appends `data` to the file.
        package func write(_ data: Data) throws(RestingError) {
            var failure: RestingError?
            data.withUnsafeBytes { bytes in
                do throws(RestingError) {
                    try write(bytes)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }

        /// Completes the file: a 2xx body with no bytes still creates it.
        package func finish(status: Int, headers: HTTPHeaderFields) throws(RestingError) {
            try begin(status: status, headers: headers)
            close()
        }

        /// Closes the file, leaving what was written for a later resume.
        package func close() {
            guard descriptor >= 0 else { return }
            FileIO.close(descriptor)
            descriptor = -1
        }

        private func open() throws(RestingError) {
            // Private until the app moves it elsewhere: a download may be anything the user fetched.
            guard let opened = FileIO.openForWriting(target.file, truncate: false, mode: 0o600) else {
                throw failure("cannot open")
            }
            descriptor = opened
            // Whatever lies past the offset came from an attempt that did not finish writing it in order.
            guard FileIO.truncate(descriptor, to: target.offset) else { throw failure("cannot position") }
        }

        /// Remembers the validator next to the partial file, so that a later attempt can resume safely; a body
        /// without one cannot be resumed, and a stale record must not vouch for it.
        private func recordValidator(_ validator: String?) {
            FileIO.remove(target.recordFile)
            guard let validator else { return }
            try? JSONEncoder().encode(PartialDownloadRecord(validator: validator)).write(
                to: target.recordFile, options: .atomic)
        }

        private func failure(_ action: String) -> RestingError {
            .downloadFailed(reason: "\(action) \(target.file.path): \(FileIO.lastError)")
        }
    }
}
