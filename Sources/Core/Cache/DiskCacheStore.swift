import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store in a private directory (mode 0700), surviving restarts, bounded by `capacity` bytes on disk.
///
/// Each entry is one file, written to a temporary name and renamed into place, so a reader sees a whole entry
/// or none; each carries its lengths and a checksum, so one damaged on disk (truncated, flipped, written by
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

    /// Opens (or creates) the store in `directory`; entries beyond `capacity` (if it shrank) are evicted.
    /// - Parameters:
    ///   - directory: The store's own folder, made (mode 0700) if missing; nothing else should write there.
    ///   - capacity: Bytes of entry files kept; default 50 MiB.
    public init(directory: URL, capacity: Int = 50 << 20) throws {
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
            guard let data = try? directory.read(name), let entry = CacheEntryCoding.decode(data) else {
                index.remove(name)
                try? directory.remove(name, flushed: false)
                return nil
            }
            guard entry.key == key else { return nil }  // another key with the same hash
            index.touch(name)
            return entry.response
        }
    }

    public func store(_ response: CachedResponse, for key: String) {
        let name = Self.fileName(for: key)
        guard let data = CacheEntryCoding.encode(response, key: key) else { return }
        index.withLock { index in
            let evicted = index.insert(name, cost: data.count)
            guard !evicted.contains(name) else { return }  // larger than the whole store
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

    /// The file of `key`: its 64-bit FNV-1a hash, so a URL never becomes a path.
    static func fileName(for key: String) -> String {
        String(CacheEntryCoding.fnv1a(Array(key.utf8)), radix: 16) + fileExtension
    }
}
