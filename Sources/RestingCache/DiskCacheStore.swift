import RestingCore
import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store in a private directory (mode 0700), surviving restarts, bounded by `capacity` bytes on disk.
///
/// Each entry is one file, named and keyed by a SHA-256 digest of its key (no URL, signed or not, is written
/// in clear), written to a temporary name and renamed into place, so a reader sees a whole entry or none; each
/// carries its lengths and a checksum, so one damaged on disk (truncated, flipped, written by
/// something else) is dropped — removed and treated as a miss — never served. Least recently used entries are
/// evicted past the capacity; use order survives a restart through the files' modification times.
///
/// ```swift
/// let store = try DiskCacheStore(directory: cachesDirectory.appendingPathComponent("http"), capacity: 100 << 20)
/// ```
public final class DiskCacheStore: HTTPCacheStore {
    private let directory: DurableDirectory
    private let index: Locked<LRUIndex>
    static let fileExtension = ".entry"
    /// Whether responses to credentialed requests are kept (see ``HTTPCacheStore/storesCredentialedResponses``).
    public let storesCredentialedResponses: Bool

    /// Opens (or creates) the store in `directory`; entries beyond `capacity` (if it shrank) are evicted.
    /// - Parameters:
    ///   - directory: The store's own folder, made (mode 0700) if missing; nothing else should write there.
    ///   - capacity: Bytes of entry files kept; default 50 MiB.
    ///   - storesCredentialedResponses: Whether responses to requests that carried credentials are kept too
    ///     (each identity under its own key; the credentials themselves never reach the disk, nor a digest of them
    ///     that a guess could be checked against — it is keyed per process, so such an entry is found only by the
    ///     process that stored it). `false` by default: what one user fetched does not outlive the process on disk.
    public init(directory: URL, capacity: Int = 50 << 20, storesCredentialedResponses: Bool = false) throws {
        self.storesCredentialedResponses = storesCredentialedResponses
        let store = try DurableDirectory(directory)
        var index = LRUIndex(capacity: capacity)
        let files = try store.names().filter { $0.hasSuffix(Self.fileExtension) }.map { name in
            let url = store.file(name)
            let modified =
                (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
            return (name: name, size: Int(FileIO.size(of: url) ?? 0), modified: modified ?? .distantPast)
        }
        var evicted: [String] = []
        for file in files.sorted(by: { $0.modified < $1.modified }) {
            evicted += index.insert(file.name, cost: file.size)
        }
        for name in evicted { try? store.remove(name, flushed: false) }
        self.directory = store
        self.index = Locked(index)
    }

    public func response(for key: String) -> CachedResponse? {
        let name = Self.fileName(for: key)
        return index.withLock { index in
            guard index.contains(name) else { return nil }
            guard let data = try? directory.read(name), let entry = CacheEntryCoding.decode(data, key: key) else {
                index.remove(name)
                try? directory.remove(name, flushed: false)
                return nil
            }
            index.touch(name)
            return entry
        }
    }

    public func store(_ response: CachedResponse, for key: String) {
        let name = Self.fileName(for: key)
        guard let data = CacheEntryCoding.encode(response, key: key) else { return }
        index.withLock { index in
            let evicted = index.insert(name, cost: data.count)
            guard !evicted.contains(name) else {
                // Larger than the whole store: not kept, and the response it replaces is gone too (from disk as
                // well, or a restart would serve the superseded response again).
                try? directory.remove(name, flushed: false)
                return
            }
            do {
                try directory.write(data, as: name, flushed: false)
            } catch {
                index.remove(name)
            }
            for old in evicted { try? directory.remove(old, flushed: false) }
        }
    }

    public func removeResponse(for key: String) {
        let name = Self.fileName(for: key)
        index.withLock { index in
            guard index.contains(name) else { return }
            index.remove(name)
            try? directory.remove(name, flushed: false)
        }
    }

    public func removeAll() {
        index.withLock { index in
            for name in index.costs.keys { try? directory.remove(name, flushed: false) }
            index.removeAll()
        }
    }

    /// `true`: every call reads or writes a file, so ``HTTPCacheInterceptor`` makes them off a transport's thread.
    public var performsBlockingIO: Bool { true }

    /// Bytes of entries on disk now.
    public var size: Int { index.withLock { $0.total } }

    /// The file of `key`: its SHA-256 digest, so a URL never becomes a path nor is written in clear.
    static func fileName(for key: String) -> String { CacheEntryCoding.digest(of: key) + fileExtension }
}
