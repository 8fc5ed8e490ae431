#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
        guard let descriptor = FileIO.createNew(temporary) else { throw Self.failure("create", temporary) }
        let written = data.withUnsafeBytes { FileIO.write(descriptor, $0) }
        let synced = FileIO.sync(descriptor)
        FileIO.close(descriptor)
        guard written, synced, FileIO.move(temporary, to: url.appendingPathComponent(name)) else {
            let failure = Self.failure("write", temporary)
            FileIO.remove(temporary)
            throw failure
        }
        try syncDirectory()
    }

    /// Removes `name`, durably.
    func remove(_ name: String) throws(RestingError) {
        guard FileIO.remove(url.appendingPathComponent(name)) else {
            throw Self.failure("remove", url.appendingPathComponent(name))
        }
        try syncDirectory()
    }

    private func syncDirectory() throws(RestingError) {
        guard let descriptor = FileIO.openDirectory(url) else { throw Self.failure("open", url) }
        defer { FileIO.close(descriptor) }
        guard FileIO.sync(descriptor) else { throw Self.failure("flush", url) }
    }

    private static func failure(_ action: String, _ url: URL) -> RestingError {
        .bodyUnreadable(reason: "cannot \(action) \(url.path): \(FileIO.lastError)")
    }
}
