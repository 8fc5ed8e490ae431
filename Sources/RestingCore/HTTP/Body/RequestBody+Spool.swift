import RestingMultipart

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestBody {
    /// For a transport that cannot pause an upload (URLSession): an async sequence's body read to its end first —
    /// in memory up to `memoryLimit` bytes, beyond that into an unlinked temporary file of at most `diskLimit` bytes
    /// — and given back as a body read without waiting. Any other body is returned as it is.
    ///
    /// Memory stays bounded, but the upload begins only once the sequence has ended. A larger body fails with
    /// ``RestingError/bodyUnreadable(reason:)``.
    package func spooled(memoryLimit: Int, diskLimit: Int64) async throws(RestingError) -> RequestBody {
        guard case .sequence(let sequence) = source else { return self }
        let reader = try SequenceBodyReader(sequence)
        defer { reader.close() }
        var memory = Data()
        var file: SpoolFile?
        while let chunk = try await reader.next(upTo: 64 * 1024) {
            if file == nil, memory.count + chunk.count <= memoryLimit {
                memory.append(chunk)
                continue
            }
            if file == nil {
                let spool = try SpoolFile()
                try spool.append(memory)
                memory = Data()
                file = spool
            }
            guard let file, file.length + Int64(chunk.count) <= diskLimit else {
                throw .bodyUnreadable(reason: "the body is larger than the \(diskLimit) bytes that may wait on disk")
            }
            try file.append(chunk)
        }
        guard let file else { return .bytes(memory) }
        return .stream(contentLength: file.length) { SpoolFileReader(file) }
    }
}

/// An unlinked temporary file: nothing is left behind, whatever happens to the process.
private final class SpoolFile: Sendable {
    private let descriptor: Int32
    private let written = Locked<Int64>(0)

    init() throws(RestingError) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("resting-upload-\(UUID().uuidString)")
        // Read and written through one descriptor, readable by this user only.
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .bodyUnreadable(reason: "no temporary file for the body: \(FileIO.lastError)")
        }
        _ = FileIO.remove(url)
        self.descriptor = descriptor
    }

    deinit { FileIO.close(descriptor) }

    var length: Int64 { written.withLock { $0 } }

    func append(_ data: Data) throws(RestingError) {
        let wrote = data.withUnsafeBytes { FileIO.write(descriptor, $0) }
        guard wrote else {
            throw .bodyUnreadable(reason: "cannot write the body's temporary file: \(FileIO.lastError)")
        }
        written.withLock { $0 += Int64(data.count) }
    }

    /// Reads at `offset` without moving a shared position: every attempt's reader keeps its own.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let base = buffer.baseAddress else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }
}

/// One attempt's pass over a ``SpoolFile``.
private final class SpoolFileReader: RequestBodyReader {
    private let file: SpoolFile
    private var offset: Int64 = 0

    init(_ file: SpoolFile) { self.file = file }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int {
        guard let count = file.read(at: offset, into: buffer) else {
            throw .bodyUnreadable(reason: "cannot read the body's temporary file: \(FileIO.lastError)")
        }
        offset += Int64(count)
        return count
    }

    func close() {}
}
