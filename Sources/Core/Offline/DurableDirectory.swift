#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory of files that survive a crash at any instant: a file is written to a temporary name, flushed
/// to disk, renamed into place (atomic) and the directory flushed, so a name either holds a complete file or
/// does not exist. Leftover temporary files of an interrupted write are removed on open.
struct DurableDirectory: Sendable {
    let url: URL
    static let temporaryPrefix = "tmp-"

    init(_ url: URL) throws(RestingError) {
        self.url = url
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name.hasPrefix(Self.temporaryPrefix) {
                try FileManager.default.removeItem(at: url.appendingPathComponent(name))
            }
        } catch {
            throw .bodyUnreadable(reason: "cannot open the store at \(url.path): \(error)")
        }
    }

    /// The names of the complete files, sorted.
    func names() throws(RestingError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: url.path)
                .filter { !$0.hasPrefix(Self.temporaryPrefix) }.sorted()
        } catch {
            throw .bodyUnreadable(reason: "cannot list the store at \(url.path): \(error)")
        }
    }

    func read(_ name: String) throws(RestingError) -> Data {
        try RequestBody.file(url.appendingPathComponent(name)).collect()
    }

    /// Writes `data` under `name`, durably.
    func write(_ data: Data, as name: String) throws(RestingError) {
        let temporary = url.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("create", temporary) }
        let written = data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return true }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc_write(descriptor, base + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written, synced, rename(temporary.path, url.appendingPathComponent(name).path) == 0 else {
            unlink(temporary.path)
            throw Self.failure("write", temporary)
        }
        try syncDirectory()
    }

    /// Removes `name`, durably.
    func remove(_ name: String) throws(RestingError) {
        guard unlink(url.appendingPathComponent(name).path) == 0 || errno == ENOENT else {
            throw Self.failure("remove", url.appendingPathComponent(name))
        }
        try syncDirectory()
    }

    private func syncDirectory() throws(RestingError) {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("open", url) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Self.failure("flush", url) }
    }

    private static func failure(_ action: String, _ url: URL) -> RestingError {
        .bodyUnreadable(reason: "cannot \(action) \(url.path): \(String(cString: strerror(errno)))")
    }
}

/// `write(2)`, named apart from Swift's `write`.
private func Glibc_write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
