import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore
@testable import RestingOffline

#if canImport(Glibc)
import Glibc
#endif

@Suite("Offline queue")
struct OfflineQueueTests {
    struct Payload: Codable, Sendable { let n: Int }
    let items = Endpoint<Payload, Nothing>(.post, "/items/{{list}}", encoding: .json)

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
    }

    @Test("a request that cannot reach the network is kept, and replayed in order through providers and interceptors")
    func keepsAndReplays() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let down = ClosureHTTPClient { _ in
            throw RestingError.transportFailed(
                TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "offline"))
        }
        let offlineClient = RestingClient(baseUrl: "https://api.example.com", httpClient: down)
        for n in 1...3 {
            let request = RestingRequest(
                endpoint: items, body: Payload(n: n), headers: ["Authorization": "Bearer old", "X-Trace": "t\(n)"],
                pathVariables: ["list": "inbox"])
            await #expect(throws: RestingError.self) {
                try await offlineClient.perform(request, storingOfflineIn: queue).value
            }
        }
        let stored = try queue.entries()
        #expect(stored.count == 3, "every request is kept, not one per URL")
        #expect(
            stored.allSatisfy { entry in !entry.headers.contains { $0.first == "Authorization" } },
            "credentials are not stored")

        let received = Collector<HTTPRequest>()
        let up = ClosureHTTPClient { request in
            received.append(request)
            return HTTPDataResponse(status: 201)
        }
        let provider = RestingHeaderProvider(providers: ["Authorization": { "Bearer fresh" }])
        let converter = RestingRequestConverter(configuration: .init(headerProvider: provider))
        let onlineClient = RestingClient(
            baseUrl: "https://api.example.com", httpClient: up, requestConverter: converter)
        let progress = Collector<Int>()
        let report = try await queue.replay(with: onlineClient) { sent, _ in progress.append(sent) }
        #expect(report.sent == 3 && report.remaining == 0 && report.stoppedBy == nil)
        #expect(try queue.entries().isEmpty)
        let bodies = try received.all.map {
            try JSONDecoder().decode(Payload.self, from: $0.body.collectSynchronously()).n
        }
        #expect(bodies == [1, 2, 3])
        #expect(
            received.all.allSatisfy { $0.headers["Authorization"] == "Bearer fresh" && $0.url.path == "/items/inbox" })
        #expect(received.all.map { $0.headers["X-Trace"] } == ["t1", "t2", "t3"])
        #expect(Set(received.all.compactMap { $0.headers["Idempotency-Key"] }).count == 3)
        #expect(progress.all == [1, 2, 3])
    }

    @Test("replay stops cleanly when the network fails again, keeping what was not sent")
    func replayStopsOnFailure() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        for n in 1...4 {
            try queue.enqueue(RestingRequest(endpoint: items, body: Payload(n: n), pathVariables: ["list": "a"]))
        }
        let calls = Collector<Int>()
        let flaky = ClosureHTTPClient { request in
            calls.append(1)
            if calls.all.count > 2 {
                throw RestingError.transportFailed(
                    TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "offline again"))
            }
            return HTTPDataResponse(status: 201)
        }
        let report = try await queue.replay(with: RestingClient(baseUrl: "https://api.example.com", httpClient: flaky))
        #expect(report.sent == 2 && report.remaining == 2 && report.stoppedBy != nil)
        let left = try queue.entries().map { try JSONDecoder().decode(Payload.self, from: $0.body ?? Data()).n }
        #expect(left == [3, 4])
    }

    // 201 processes, 51 under a sanitizer: there each costs over a second of the test process's time (Foundation's
    // Process under instrumentation), and the full count starved the other tests past their time limits on 2 cores.
    @Test(
        "killed with SIGKILL at random points while enqueueing and replaying, the store loses and duplicates nothing",
        .timeLimit(.minutes(5)))
    func crashSafety() async throws {
        let directory = temporaryDirectory()
        let sentLog = temporaryDirectory().appendingPathExtension("log")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: sentLog)
        }
        var acknowledged = Set<Int>()
        var kills = 0
        var checks = 0
        var interruptedWrites = 0
        let (enqueueRounds, replayRounds) = Probe.underSanitizer ? (40, 10) : (150, 50)
        for round in 0..<enqueueRounds {
            let lines = try await Probe.run(
                ["enqueue", directory.path, "\(round * 1000)", "200"], killAfter: Int.random(in: 0...6))
            kills += 1
            acknowledged.formUnion(lines.compactMap { $0.hasPrefix("ok ") ? Int($0.dropFirst(3)) : nil })
            interruptedWrites +=
                (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasPrefix("tmp-") }
                .count ?? 0
            try verify(directory, sentLog: sentLog, acknowledged: acknowledged)
            checks += 1
        }
        for _ in 0..<replayRounds {
            _ = try await Probe.run(["replay", directory.path, sentLog.path], killAfter: Int.random(in: 0...4))
            kills += 1
            try verify(directory, sentLog: sentLog, acknowledged: acknowledged)
            checks += 1
        }
        _ = try await Probe.run(["replay", directory.path, sentLog.path], killAfter: nil)
        let (stored, sent) = try verify(directory, sentLog: sentLog, acknowledged: acknowledged)
        #expect(stored.isEmpty, "a complete replay empties the store")
        #expect(acknowledged.isSubset(of: Set(sent)), "every acknowledged request was delivered")
        print(
            "offline queue crash test: \(kills) SIGKILLs (\(interruptedWrites) in the middle of a write), \(checks) store checks, "
                + "\(acknowledged.count) acknowledged requests, "
                + "\(sent.count - Set(sent).count) redelivered after a kill between delivery and removal")
    }

    /// Opens the store as a restarted app would and checks it: every file decodes, no request is stored twice,
    /// and every acknowledged request is stored or was delivered.
    @discardableResult
    private func verify(_ directory: URL, sentLog: URL, acknowledged: Set<Int>) throws -> (stored: [Int], sent: [Int]) {
        let entries = try OfflineQueue(directory: directory).entries()
        let stored = try entries.map { try JSONDecoder().decode(Payload.self, from: $0.body ?? Data()).n }
        let sent = ((try? String(contentsOf: sentLog, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            Int($0)
        }
        #expect(Set(stored).count == stored.count, "no request is stored twice")
        let missing = acknowledged.subtracting(stored).subtracting(sent)
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.sorted())")
        return (stored, sent)
    }
}
