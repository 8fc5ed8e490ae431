#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private directory of files that survive a crash at any instant: a file is written to a temporary name,
/// flushed to disk, renamed into place (atomic) and the directory flushed, so a name either holds a complete
/// file or does not exist. Leftover temporary files of an interrupted write are removed on open.
///
/// The directory is the owner's alone (mode 0700, files 0600): what it keeps — queued requests with their
/// bodies — is for this app's eyes only.
package struct DurableDirectory: Sendable {
    let url: URL
    static let temporaryPrefix = "tmp-"
    /// Where files that cannot be read are moved, out of the way of the store but kept for inspection.
    static let quarantineName = "quarantine"

    package init(_ url: URL) throws(RestingError) {
        self.url = url
        // A store reached through a symbolic link would change the modes of, and delete files in, its target.
        guard !FileIO.isSymbolicLink(url) else {
            throw .bodyUnreadable(reason: "the store at \(url.path) is a symbolic link; give its real path")
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            // Also when it existed before: a store made by an older version, or by hand, may be readable by all.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path)
            where name.hasPrefix(Self.temporaryPrefix) {
                try FileManager.default.removeItem(at: url.appendingPathComponent(name))
            }
        } catch {
            throw .bodyUnreadable(reason: "cannot open the store at \(url.path): \(error)")
        }
    }

    /// The names of the complete files, sorted.
    package func names() throws(RestingError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: url.path)
                .filter { !$0.hasPrefix(Self.temporaryPrefix) && $0 != Self.quarantineName }.sorted()
        } catch {
            throw .bodyUnreadable(reason: "cannot list the store at \(url.path): \(error)")
        }
    }

    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    package func read(_ name: String) throws(RestingError) -> Data {
        try RequestBody.file(file(name)).collectSynchronously()
    }

    /// Writes `data` under `name`, atomically; durably unless `flushed` is false (a cache, which can lose an
    /// entry to a power cut but must never see half of one, skips the two `fsync`s).
    package func write(_ data: Data, as name: String, flushed: Bool = true) throws(RestingError) {
        try write(as: name, flushed: flushed) { descriptor in data.withUnsafeBytes { FileIO.write(descriptor, $0) } }
    }

    /// Writes `body` under `name`, durably, streaming it: a large file body never sits whole in memory.
    package func write(_ body: RequestBody, as name: String) throws(RestingError) {
        let reader = try body.makeReader()
        defer { reader.close() }
        var readFailure: RestingError?
        try write(as: name) { descriptor in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let count: Int
                do throws(RestingError) {
                    count = try reader.read(into: buffer)
                } catch {
                    readFailure = error
                    return false
                }
                guard count > 0 else { return true }
                guard FileIO.write(descriptor, UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return false }
            }
        }
        if let readFailure { throw readFailure }
    }

    /// Fills a new temporary file with `fill` (false: it failed), flushes it and renames it to `name`.
    private func write(as name: String, flushed: Bool = true, fill: (Int32) -> Bool) throws(RestingError) {
        let temporary = url.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        guard let descriptor = FileIO.createNew(temporary) else { throw Self.failure("create", temporary) }
        let written = fill(descriptor)
        let synced = written && (!flushed || FileIO.sync(descriptor))
        FileIO.close(descriptor)
        guard synced, FileIO.move(temporary, to: file(name)) else {
            let failure = Self.failure("write", temporary)
            FileIO.remove(temporary)
            throw failure
        }
        if flushed { try syncDirectory() }
    }

    /// Removes `name`, durably unless `flushed` is false.
    package func remove(_ name: String, flushed: Bool = true) throws(RestingError) {
        guard FileIO.remove(file(name)) else { throw Self.failure("remove", file(name)) }
        if flushed { try syncDirectory() }
    }

    /// Moves `name` into the quarantine folder (created 0700 when first needed), durably.
    package func quarantine(_ name: String) throws(RestingError) {
        let folder = url.appendingPathComponent(Self.quarantineName)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .bodyUnreadable(reason: "cannot create \(folder.path): \(error)")
        }
        guard FileIO.move(file(name), to: folder.appendingPathComponent(name)) else {
            throw Self.failure("quarantine", file(name))
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
