import Foundation
import Testing

@testable import RestingCache
@testable import RestingCore

/// The memory and disk stores: least-recently-used eviction under a size limit, atomic disk entries, and a
/// damaged entry dropped rather than served.
@Suite("HTTP cache stores")
struct HTTPCacheStoreTests {
    func entry(_ key: String, bodySize: Int) -> CachedResponse {
        CachedResponse(
            url: URL(string: key)!, status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept"],
            body: Data(repeating: UInt8(ascii: "x"), count: bodySize),
            requestTime: Date(timeIntervalSince1970: 1_800_000_000),
            responseTime: Date(timeIntervalSince1970: 1_800_000_001),
            varyingRequestHeaders: ["accept": "application/json"])
    }

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rk-cache-\(UUID().uuidString)")
    }

    /// Stores a, b, c (each about a third of the capacity), touches a, then stores d: b, the least recently
    /// used, is evicted.
    func checkEviction(_ store: any HTTPCacheStore, entrySize: Int) {
        for key in ["https://h.example/a", "https://h.example/b", "https://h.example/c"] {
            store.store(entry(key, bodySize: entrySize), for: key)
        }
        #expect(store.response(for: "https://h.example/a") != nil)
        store.store(entry("https://h.example/d", bodySize: entrySize), for: "https://h.example/d")
        #expect(store.response(for: "https://h.example/b") == nil, "the least recently used went")
        for key in ["https://h.example/a", "https://h.example/c", "https://h.example/d"] {
            #expect(store.response(for: key) == entry(key, bodySize: entrySize), "\(key) kept, whole")
        }
    }

    @Test("the memory store evicts the least recently used past its capacity, and keeps nothing larger than it")
    func memoryEviction() {
        let store = MemoryCacheStore(capacity: 3 * 1500)
        checkEviction(store, entrySize: 1000)
        #expect(store.size <= 3 * 1500)
        store.store(entry("https://h.example/huge", bodySize: 10_000), for: "https://h.example/huge")
        #expect(store.response(for: "https://h.example/huge") == nil)
        store.removeAll()
        #expect(store.size == 0)
    }

    @Test(
        "the disk store says it blocks on I/O (the cache calls it off a transport's thread); the memory store does not")
    func blockingIO() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try DiskCacheStore(directory: directory).performsBlockingIO)
        #expect(!MemoryCacheStore().performsBlockingIO)
    }

    @Test("the disk store evicts the least recently used, and its entries and use order survive reopening")
    func diskEvictionAndReopen() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory, capacity: 3 * 1600)
        checkEviction(store, entrySize: 1000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 3)

        let reopened = try DiskCacheStore(directory: directory, capacity: 3 * 1600)
        #expect(reopened.size == store.size)
        #expect(reopened.response(for: "https://h.example/d") == entry("https://h.example/d", bodySize: 1000))
        let shrunk = try DiskCacheStore(directory: directory, capacity: 1600)
        #expect(shrunk.size <= 1600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1,
            "a smaller capacity evicts at open")
    }

    @Test(
        "a damaged disk entry — truncated, a flipped byte, another format — is dropped, never served",
        arguments: ["truncated", "flipped", "foreign"])
    func damagedEntry(_ damage: String) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory)
        let key = "https://h.example/a"
        store.store(entry(key, bodySize: 100), for: key)
        let file = directory.appendingPathComponent(DiskCacheStore.fileName(for: key))
        var bytes = [UInt8](try Data(contentsOf: file))
        switch damage {
        case "truncated": bytes.removeLast(10)
        case "flipped": bytes[bytes.count - 30] ^= 0x01
        default: bytes = Array("{\"not\": \"an entry\"}".utf8)
        }
        try Data(bytes).write(to: file)
        let reopened = try DiskCacheStore(directory: directory)
        #expect(reopened.response(for: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path), "the damaged file is removed")
        #expect(reopened.size == 0)
    }

    @Test("#12 an entry replaced by one larger than the whole store is gone from disk too, also after a restart")
    func oversizedReplacementRemovesTheOldFile() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "https://h.example/profile"
        let store = try DiskCacheStore(directory: directory, capacity: 4096)
        store.store(entry(key, bodySize: 100), for: key)
        #expect(store.response(for: key) != nil)
        store.store(entry(key, bodySize: 10_000), for: key)
        #expect(store.response(for: key) == nil, "the superseded response is not served")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".entry") }
                .isEmpty)
        #expect(try DiskCacheStore(directory: directory, capacity: 4096).response(for: key) == nil)
    }

    @Test("entries round-trip the file format exactly; keys never become paths")
    func entryFormat() throws {
        let key = "https://h.example/../../etc/passwd?q=1"
        let original = entry(key, bodySize: 3)
        let encoded = try #require(CacheEntryCoding.encode(original, key: key))
        #expect(CacheEntryCoding.decode(encoded, key: key) == original)
        #expect(CacheEntryCoding.decode(encoded, key: key + "2") == nil, "an entry answers only its own key")
        #expect(!DiskCacheStore.fileName(for: key).contains("/"))
    }

    @Test("the disk store under 8 concurrent writers and readers stays within capacity and consistent with its files")
    func diskConcurrency() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory, capacity: 20 * 700)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<40 {
                        let key = "https://h.example/\(writer)/\(index % 10)"
                        store.store(self.entry(key, bodySize: 300), for: key)
                        if let read = store.response(for: key) { #expect(read.url.absoluteString == key) }
                    }
                }
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".entry")
        }
        let onDisk = try files.reduce(0) {
            $0
                + (try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($1).path)[.size]
                    as? Int ?? 0)
        }
        #expect(store.size <= 20 * 700)
        #expect(onDisk == store.size, "the index and the directory agree")
    }
}
