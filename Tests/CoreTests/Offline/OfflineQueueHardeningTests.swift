import Foundation
import RestingTestSupport
import Testing

@testable import RestingCache
@testable import RestingCore
@testable import RestingOffline

/// What a hostile network, a crowded disk and a careless caller do to the offline queue: it neither
/// delivers twice what it cannot identify, nor jams, nor leaks what it stores, nor hides a failure.
@Suite("Offline queue under hostile conditions")
struct OfflineQueueHardeningTests {
    struct Payload: Codable, Sendable { let n: Int }
    let create = Endpoint<Payload, Nothing>(.post, "/items", encoding: .json)

    /// An app's own attribute: kept with a queued request like the library's.
    enum TenantKey: PersistentRequestAttributeKey {
        static let defaultValue: String? = nil
        static let name = "test.tenant"
    }

    /// An attribute whose value type changed between the release that kept it and the one replaying it.
    enum RenamedTypeKey: PersistentRequestAttributeKey {
        static let defaultValue: Int? = nil
        static let name = "test.renamed"
    }

    enum RenamedTypeAsStringKey: PersistentRequestAttributeKey {
        static let defaultValue: String? = nil
        static let name = "test.renamed"
    }

    private func withStore(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    private func failing(_ kind: TransportError.Kind, seen: Collector<HTTPRequest>) -> RestingClient {
        RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { request in
                seen.append(request)
                throw RestingError.transportFailed(
                    TransportError(kind: kind, code: 0, domain: "test", message: "\(kind)"))
            })
    }

    private func delivering(_ seen: Collector<HTTPRequest>) -> RestingClient {
        RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { request in
                seen.append(request)
                return HTTPDataResponse(status: 201)
            })
    }

    @Test("the Idempotency-Key is fixed at the first send and replayed unchanged; an app's own key is kept")
    func idempotencyKeyIsFixedAtFirstSend() async throws {
        try await withStore { directory in
            let queue = try OfflineQueue(directory: directory)
            let firstSends = Collector<HTTPRequest>()
            let offline = failing(.connectionFailed, seen: firstSends)
            _ = try? await offline.perform(
                RestingRequest(endpoint: create, body: Payload(n: 1)), storingOfflineIn: queue
            ).value
            _ = try? await offline.perform(
                RestingRequest(endpoint: create, body: Payload(n: 2), headers: ["Idempotency-Key": "app-key"]),
                storingOfflineIn: queue
            ).value
            let replays = Collector<HTTPRequest>()
            _ = try await queue.replay(with: delivering(replays))
            let sentKeys = firstSends.all.map { $0.headers["Idempotency-Key"] }
            #expect(sentKeys.allSatisfy { $0 != nil } && sentKeys[1] == "app-key")
            #expect(replays.all.map { $0.headers["Idempotency-Key"] } == sentKeys)
            #expect(replays.all.allSatisfy { $0.headers.values(for: "Idempotency-Key").count == 1 })
        }
    }

    @Test(
        "a POST that timed out or was reset is not kept by default; refused or unresolved it is; PUT always; opt-in keeps all"
    )
    func onlyUndeliveredNonIdempotentRequestsAreKept() async throws {
        let put = Endpoint<Payload, Nothing>(.put, "/items/1", encoding: .json)
        let cases: [(TransportError.Kind, RequestMethod, OfflineQueue.DeliveryPolicy, Bool)] = [
            (.timedOut, .post, .keepOnlyUndelivered, false), (.connectionReset, .post, .keepOnlyUndelivered, false),
            (.connectionFailed, .post, .keepOnlyUndelivered, true), (.dnsFailed, .post, .keepOnlyUndelivered, true),
            (.timedOut, .put, .keepOnlyUndelivered, true), (.timedOut, .post, .keepPossiblyDelivered, true),
            (.tlsFailed, .post, .keepPossiblyDelivered, false),
        ]
        for (kind, method, policy, kept) in cases {
            try await withStore { directory in
                let queue = try OfflineQueue(directory: directory)
                let client = failing(kind, seen: Collector())
                let error: RestingError?
                if method == .put {
                    error = await restingError {
                        try await client.perform(
                            RestingRequest(endpoint: put, body: Payload(n: 1)), storingOfflineIn: queue,
                            ifDeliveryUncertain: policy
                        ).value
                    }
                } else {
                    error = await restingError {
                        try await client.perform(
                            RestingRequest(endpoint: create, body: Payload(n: 1)), storingOfflineIn: queue,
                            ifDeliveryUncertain: policy
                        ).value
                    }
                }
                guard case .transportFailed(let failure) = error else {
                    Issue.record("\(kind): \(String(describing: error))")
                    return
                }
                #expect(failure.kind == kind)
                #expect(try queue.entries().count == (kept ? 1 : 0), "\(method) after \(kind) under \(policy)")
            }
        }
    }

    @Test("a corrupt entry is quarantined and a stranger's file ignored: the queue never jams")
    func unreadableEntriesAreQuarantined() async throws {
        try await withStore { directory in
            let queue = try OfflineQueue(directory: directory)
            for n in 1...3 { try queue.enqueue(RestingRequest(endpoint: create, body: Payload(n: n))) }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                $0.hasSuffix(".json")
            }.sorted()
            try Data("{\"id\":".utf8).write(to: directory.appendingPathComponent(names[1]))  // truncated
            try Data([0, 1, 2]).write(to: directory.appendingPathComponent(".DS_Store"))
            try Data().write(to: directory.appendingPathComponent("0000000000000099-empty.json"))
            #expect(try queue.entries().count == 2)
            let seen = Collector<HTTPRequest>()
            let report = try await queue.replay(with: delivering(seen))
            #expect(report.sent == 2 && report.remaining == 0 && report.stoppedBy == nil)
            let bodies = try seen.all.map {
                try JSONDecoder().decode(Payload.self, from: $0.body.collectSynchronously()).n
            }
            #expect(bodies == [1, 3])
            let quarantine = directory.appendingPathComponent("quarantine")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: quarantine.path).sorted()
                    == [names[1], "0000000000000099-empty.json"].sorted())
            #expect(try queue.entries().isEmpty)
        }
    }

    @Test("two replays at once deliver each entry once")
    func concurrentReplaysAreSerialised() async throws {
        try await withStore { directory in
            let queue = try OfflineQueue(directory: directory)
            for n in 1...6 { try queue.enqueue(RestingRequest(endpoint: create, body: Payload(n: n))) }
            let seen = Collector<Int>()
            let slow = RestingClient(
                baseUrl: "https://api.example.com",
                httpClient: ClosureHTTPClient { request in
                    seen.append(try JSONDecoder().decode(Payload.self, from: request.body.collectSynchronously()).n)
                    try await Task.sleep(for: .milliseconds(20))  // keeps the two replays overlapping
                    return HTTPDataResponse(status: 201)
                })
            let reports = try await withThrowingTaskGroup(of: OfflineQueue.ReplayReport.self) { group in
                group.addTask { try await queue.replay(with: slow) }
                group.addTask { try await queue.replay(with: slow) }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(seen.all == [1, 2, 3, 4, 5, 6])
            #expect(reports.map(\.sent).sorted() == [0, 6])
        }
    }

    @Test("a large or file-backed body streams into the store and out again; the entry stays small")
    func largeBodiesStreamThroughTheStore() async throws {
        try await withStore { directory in
            let source = directory.appendingPathExtension("upload")
            let content = Data((0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try content.write(to: source)
            defer { try? FileManager.default.removeItem(at: source) }
            let queue = try OfflineQueue(directory: directory)
            let upload = Endpoint<URL, Nothing>(
                .put, "/files/big", encoding: .raw(contentType: "application/octet-stream"))
            let entry = try queue.enqueue(RestingRequest(endpoint: upload, body: source))
            #expect(entry.body == nil && entry.bodyFile != nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            let entryFile = try #require(files.first { $0.hasSuffix(".json") })
            #expect(try Data(contentsOf: directory.appendingPathComponent(entryFile)).count < 4096)
            let received = Collector<Data>()
            _ = try await queue.replay(
                with: RestingClient(
                    baseUrl: "https://api.example.com",
                    httpClient: ClosureHTTPClient { request in
                        received.append(try request.body.collectSynchronously())
                        return HTTPDataResponse(status: 201)
                    }))
            #expect(received.all == [content])
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path) == [DirectoryLock.fileName],
                "entry and body removed; only the queue's lock file is left")
        }
    }

    @Test("the store is private: the folder 0700 (even one made before), its files 0600")
    func storeIsPrivate() async throws {
        try await withStore { directory in
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let queue = try OfflineQueue(directory: directory)
            try queue.enqueue(RestingRequest(endpoint: create, body: Payload(n: 1)))
            let mode = { (url: URL) in
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
            }
            #expect(try mode(directory) == 0o700)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                #expect(try mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
            }
        }
    }

    @Test("when the request cannot be stored either, both failures reach the caller")
    func storageFailureDoesNotHideTheNetworkError() async throws {
        try await withStore { directory in
            let queue = try OfflineQueue(directory: directory)
            try FileManager.default.removeItem(at: directory)
            try Data("not a folder".utf8).write(to: directory)  // every write into the store now fails
            await #expect {
                try await failing(.connectionFailed, seen: Collector()).perform(
                    RestingRequest(endpoint: create, body: Payload(n: 1)), storingOfflineIn: queue
                ).value
            } throws: { error in
                guard let failure = error as? OfflineStorageFailure else { return false }
                return failure.original.kind == .connectionFailed && !failure.reason.isEmpty
            }
        }
    }

    @Test("an entry naming a body file outside the store is quarantined: nothing elsewhere is uploaded or deleted")
    func tamperedBodyFileIsQuarantined() async throws {
        try await withStore { directory in
            let victim = FileManager.default.temporaryDirectory.appendingPathComponent("victim-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: victim) }
            try Data("private".utf8).write(to: victim)
            let queue = try OfflineQueue(directory: directory)
            try queue.enqueue(RestingRequest(endpoint: create, body: Payload(n: 1)))
            let name = try #require(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".json") })
            let file = directory.appendingPathComponent(name)
            var entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            entry["bodyFile"] = "../" + victim.lastPathComponent
            try JSONSerialization.data(withJSONObject: entry).write(to: file)
            let seen = Collector<HTTPRequest>()
            let report = try await queue.replay(with: delivering(seen))
            #expect(report.sent == 0 && report.quarantined == 1)
            #expect(seen.all.isEmpty, "nothing was uploaded")
            #expect(try Data(contentsOf: victim) == Data("private".utf8), "and the file outside is untouched")
        }
    }

    @Test("an attribute of any module's key is kept and replayed, and reads as its default where it no longer decodes")
    func attributesOfAnyKeyAreReplayed() async throws {
        try await withStore { directory in
            var request = RestingRequest(endpoint: create, body: Payload(n: 1))
            request.attributes[TenantKey.self] = "acme"
            request.attributes.isIdempotent = true
            request.attributes[RenamedTypeKey.self] = 7
            let queue = try OfflineQueue(directory: directory)
            try queue.enqueue(request)
            let kept = try #require(try queue.entries().first?.attributes)
            #expect(kept.keys.sorted() == ["test.renamed", "test.tenant", IdempotentKey.name].sorted())
            let seen = Collector<HTTPRequest>()
            let report = try await queue.replay(with: delivering(seen))
            #expect(report.sent == 1 && report.quarantined == 0)
            let replayed = try #require(seen.all.first?.attributes)
            #expect(replayed[TenantKey.self] == "acme")
            #expect(replayed.isIdempotent == true)
            #expect(replayed[RenamedTypeAsStringKey.self] == nil, "a value of another type reads as the default")
        }
    }

    @Test("the app's persistent attributes are replayed with the request")
    func appAttributesAreReplayed() async throws {
        try await withStore { directory in
            let queue = try OfflineQueue(directory: directory)
            var request = RestingRequest(endpoint: create.setting(\.maximumAttempts, 1), body: Payload(n: 1))
            request.attributes[TenantKey.self] = "acme"
            try queue.enqueue(request)
            let seen = Collector<HTTPRequest>()
            _ = try await queue.replay(with: delivering(seen))
            #expect(seen.all.map { $0.attributes[TenantKey.self] } == ["acme"])
            #expect(seen.all.map(\.attributes.maximumAttempts) == [1])
        }
    }

    @Test("a store directory that is a symbolic link is refused, and its target left as it was")
    func symlinkedStoreIsRefused() async throws {
        try await withStore { directory in
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("target-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: target) }
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target.path)
            try Data().write(to: target.appendingPathComponent("tmp-keep"))
            try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: target)
            #expect(throws: RestingError.self) { try OfflineQueue(directory: directory) }
            #expect(throws: RestingError.self) { try DiskCacheStore(directory: directory) }
            let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
            #expect(mode == 0o755)
            #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("tmp-keep").path))
        }
    }

    @Test("a second queue on a directory already open fails to open; once the first is gone, it opens")
    func oneQueuePerDirectory() async throws {
        try await withStore { directory in
            do {
                let first = try OfflineQueue(directory: directory)
                #expect(throws: RestingError.self) { try OfflineQueue(directory: directory) }
                _ = try first.entries()
            }
            #expect(try OfflineQueue(directory: directory).entries().isEmpty)
        }
    }
}
