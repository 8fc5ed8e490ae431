import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a request body sequentially. One reader serves one attempt, on one thread at a time.
public protocol RequestBodyReader: AnyObject {
    /// Copies up to `buffer.count` bytes into `buffer`; returns how many, and 0 only at the end of the body.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int
    /// Releases what the reader holds (a file descriptor). Called once, also after a failed or cancelled attempt.
    func close()
}

/// Serves bytes already in memory.
final class DataBodyReader: RequestBodyReader {
    private let data: Data
    private var offset = 0

    init(_ data: Data) { self.data = data }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        let start = data.startIndex + offset
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
        offset += count
        return count
    }

    func close() {}
}

/// Streams a file with `read(2)`, so that only one buffer of it is ever in memory.
final class FileBodyReader: RequestBodyReader {
    private var descriptor: Int32
    private let path: String

    init(url: URL) throws(RestingError) {
        path = url.path
        guard let descriptor = FileIO.openForReading(url) else {
            throw .bodyUnreadable(reason: "cannot open \(path): \(FileIO.lastError)")
        }
        self.descriptor = descriptor
    }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int {
        guard let count = FileIO.read(descriptor, into: buffer) else {
            throw .bodyUnreadable(reason: "cannot read \(path): \(FileIO.lastError)")
        }
        return count
    }

    func close() {
        guard descriptor >= 0 else { return }
        FileIO.close(descriptor)
        descriptor = -1
    }
}
