#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Streams a ``MultipartFormData`` body into the caller's buffers, opening each file only when it reaches
/// it and closing it at its end, so at most one file is open at a time. One reader serves one pass over
/// the body, on one thread at a time; make a new one to send the body again.
public final class MultipartBodyReader {
    private let segments: [MultipartFormData.Segment]
    private var index = 0
    /// Bytes of the current segment already produced.
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1

    init(segments: [MultipartFormData.Segment]) { self.segments = segments }

    deinit { close() }

    /// Copies up to `buffer.count` bytes of the body into `buffer`; returns how many, 0 only at the end.
    /// Throws ``MultipartError/fileChanged(_:expectedLength:)`` when a file no longer has the length the
    /// body announced, and ``MultipartError/fileUnreadable(_:reason:)`` when it can no longer be read.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MultipartError) -> Int {
        var filled = 0
        while filled < buffer.count, index < segments.count {
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            let count: Int
            switch segments[index] {
            case .bytes(let data):
                count = min(target.count, data.count - Int(offset))
                let start = data.startIndex + Int(offset)
                data.copyBytes(to: target.bindMemory(to: UInt8.self), from: start..<(start + count))
            case .file(let url, let length):
                count = try readFile(url, length: length, into: target)
            }
            filled += count
            offset += Int64(count)
            if offset == segments[index].length { advance() }
        }
        return filled
    }

    /// Releases the open file, if any. Called once the body has been sent, also after a failure.
    public func close() {
        guard descriptor >= 0 else { return }
        FileIO.close(descriptor)
        descriptor = -1
    }

    private func advance() {
        close()
        index += 1
        offset = 0
    }

    private func readFile(_ url: URL, length: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(MultipartError)
        -> Int
    {
        if descriptor < 0 {
            guard try FileStatus.readableLength(of: url) == length else {
                throw .fileChanged(url, expectedLength: length)
            }
            guard let opened = FileIO.openForReading(url) else { throw .fileUnreadable(url, reason: FileIO.lastError) }
            descriptor = opened
        }
        let wanted = Int(min(Int64(buffer.count), length - offset))
        guard wanted > 0 else { return 0 }
        guard let count = FileIO.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
        else {
            throw .fileUnreadable(url, reason: FileIO.lastError)
        }
        // Ending early means the file shrank after it was measured.
        guard count > 0 else { throw .fileChanged(url, expectedLength: length) }
        return count
    }
}
