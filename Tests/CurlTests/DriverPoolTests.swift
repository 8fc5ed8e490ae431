import Foundation
import RestingCore
import RestingServerHarness
import Testing

@testable import RestingCurl

/// A `CurlClient` runs one driver thread per core: calls spread over them, and what holds for one client — its
/// connection limits, `cancelAll`, its threads' lifetime — holds over all of them.
@Suite("Curl drivers", .timeLimit(.minutes(5)))
struct DriverPoolTests {
    /// A client with `drivers` drivers and no idle timeout: the calls here wait on the server for as long as a test
    /// needs, however loaded the machine (a sanitizer's run) is.
    func client(drivers: Int, _ configure: (inout CurlConfiguration) -> Void = { _ in }) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.driverCount = drivers
        configuration.idleTimeout = nil
        configure(&configuration)
        return try CurlClient(configuration: configuration)
    }

    @Test("connection limits are split over the drivers, so that their sum is the client's limit")
    func sharesOfTheLimits() {
        #expect(
            ConnectionShares.split(drivers: 4, perHost: 0, total: 0)
                == Array(repeating: .init(perHost: 0, total: 0), count: 4))
        #expect(
            ConnectionShares.split(drivers: 2, perHost: 3, total: 10) == [
                .init(perHost: 2, total: 5), .init(perHost: 1, total: 5),
            ])
        #expect(ConnectionShares.split(drivers: 8, perHost: 2, total: 0).count == 2, "no driver with a share of none")
        #expect(
            ConnectionShares.split(drivers: 8, perHost: 0, total: 3)
                == Array(repeating: .init(perHost: 0, total: 1), count: 3))
        #expect(ConnectionShares.split(drivers: 0, perHost: 0, total: 0).count == 1, "always one driver")
    }

    @Test("concurrent calls spread over every driver; sequential calls from one task stay on one")
    func callsSpread() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try client(drivers: 3)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/delay/200"))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 {
                group.addTask { try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }.status }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(transport.drivers.startedTransfers.allSatisfy { $0 > 0 }, "\(transport.drivers.startedTransfers)")

        let sequential = try client(drivers: 3)
        let fast = try #require(URL(string: "http://127.0.0.1:\(server.port)/bytes/1"))
        for _ in 0..<10 { _ = try await sequential.send(HTTPRequest(method: .get, url: fast)) { _ in } }
        #expect(sequential.drivers.startedTransfers.sorted() == [0, 0, 10], "\(sequential.drivers.startedTransfers)")
    }

    @Test("request loops on the executor spread over the drivers, each loop's calls on the driver it runs on")
    func loopsOnTheExecutorSpread() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try client(drivers: 2)
        let client = RestingClient(baseUrl: "http://127.0.0.1:\(server.port)", httpClient: transport)
        let endpoint = Endpoint<Nothing, Data>(.get, "/delay/50", encoding: .query)
        let threadsPerLoop = try await withThrowingTaskGroup(of: Set<UInt>.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: transport.executor) {
                    var threads: Set<UInt> = []
                    for _ in 0..<4 {
                        threads.insert(currentThreadID())
                        _ = try await client.perform(RestingRequest(endpoint: endpoint)).value
                    }
                    return threads
                }
            }
            return try await group.reduce(into: [Set<UInt>]()) { $0.append($1) }
        }
        let started = transport.drivers.startedTransfers
        #expect(started.reduce(0, +) == 32)
        #expect(started.allSatisfy { $0 > 0 }, "\(started)")
        #expect(threadsPerLoop.allSatisfy { $0.count == 1 }, "a loop never leaves its driver's thread")
        #expect(Set(threadsPerLoop.flatMap { $0 }).count == 2, "the loops run on both drivers' threads")
    }

    @Test("a per-host limit holds for the whole client: 3 over 2 drivers is 2 + 1 connections, never a fourth")
    func perHostLimitHoldsAcrossDrivers() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try client(drivers: 2) { $0.maximumConnectionsPerHost = 3 }
        try await expectConnections(limit: 3, calls: 6, transport: transport, server: server)
    }

    @Test("a total limit below the driver count runs that many drivers, one connection each")
    func totalLimitBelowTheDriverCount() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try client(drivers: 4) { $0.maximumConnections = 2 }
        #expect(transport.drivers.startedTransfers.count == 2)
        try await expectConnections(limit: 2, calls: 5, transport: transport, server: server)
    }

    /// Sends `calls` requests the server holds, checks that exactly `limit` arrive (every driver uses its share, none
    /// more), releases them and checks that all succeed.
    private func expectConnections(limit: Int, calls: Int, transport: CurlClient, server: LocalServer) async throws {
        let tag = UUID().uuidString
        let held = try #require(URL(string: "http://127.0.0.1:\(server.port)/held?tag=\(tag)"))
        let results = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<calls {
                    group.addTask { try await transport.send(HTTPRequest(method: .get, url: held)) { _ in }.status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        let counter = try HeldCounter(server: server, tag: tag)
        let arrived: (all: Int, oneMore: Int)
        do {
            // A correct client never lets one more arrive; a broken one would within the half second.
            arrived = (
                try await counter.waiting(atLeast: limit),
                try await counter.waiting(atLeast: limit + 1, within: 0.5)
            )
        } catch {
            try? await counter.release()
            throw error
        }
        try await counter.release()
        #expect(arrived.all == limit, "every driver uses its share")
        #expect(arrived.oneMore == limit, "never over the limit")
        #expect(try await results.value == Array(repeating: 200, count: calls))
        #expect(try await counter.peak() == limit)
    }

    @Test("cancelAll reaches the calls on every driver, and no transfer outlives them")
    func cancelAllReachesEveryDriver() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try client(drivers: 3)
        let client = RestingClient(baseUrl: "http://127.0.0.1:\(server.port)", httpClient: transport)
        let tags = (0..<9).map { _ in UUID().uuidString }
        let calls = tags.map { tag in
            client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/delay/120000?tag=\(tag)", encoding: .query)))
        }
        for tag in tags { try await server.waitUntilDelaying(tag: tag) }
        #expect(transport.drivers.startedTransfers.allSatisfy { $0 > 0 }, "\(transport.drivers.startedTransfers)")
        client.cancelAll()
        for call in calls {
            do {
                _ = try await call.value
                Issue.record("a two-minute call completed after cancelAll")
            } catch RestingError.cancelled {}
        }
        #expect(await transport.settledCensus().live == 0)
    }

    @Test("every driver's thread ends when the client is released")
    func threadsEndWithTheClient() async throws {
        var transport: CurlClient? = try client(drivers: 3)
        let drivers = try #require(transport?.drivers)
        #expect(drivers.runningDrivers == 3)
        transport = nil
        // A thread that never ends fails the suite's time limit.
        while drivers.runningDrivers > 0 { await Task.yield() }
        #expect(await Task(executorPreference: drivers) { 42 }.value == 42, "a late task still runs")
    }
}

/// Asks the conformance server about its `/held` requests of one tag, over a client of its own: one driver, no idle
/// timeout (the server answers once enough requests arrived), nothing shared with the client under test.
private struct HeldCounter {
    struct Counts: Decodable { let waiting: Int, peak: Int }

    let server: LocalServer
    let tag: String
    let control: CurlClient

    init(server: LocalServer, tag: String) throws {
        var configuration = CurlConfiguration()
        configuration.driverCount = 1
        configuration.idleTimeout = nil
        self.server = server
        self.tag = tag
        control = try CurlClient(configuration: configuration)
    }

    /// How many wait now, once `atLeast` of them do or `within` seconds passed.
    func waiting(atLeast: Int, within: Double) async throws -> Int {
        try await counts("/held-count?tag=\(tag)&at-least=\(atLeast)&within=\(within)").waiting
    }

    /// How many wait once `atLeast` of them do, asking again every 5 seconds: a loaded run (AddressSanitizer's, every
    /// suite at once) can delay the tasks sending the calls by minutes, and only the suite's time limit
    /// bounds the wait.
    func waiting(atLeast: Int) async throws -> Int {
        while true {
            let waiting = try await waiting(atLeast: atLeast, within: 5)
            if waiting >= atLeast { return waiting }
        }
    }

    /// The most that ever waited at once.
    func peak() async throws -> Int { try await counts("/held-count?tag=\(tag)").peak }

    /// Lets every held request of the tag, and any later one, answer.
    func release() async throws { _ = try await get("/release-held?tag=\(tag)") }

    private func counts(_ path: String) async throws -> Counts {
        try JSONDecoder().decode(Counts.self, from: try await get(path))
    }

    private func get(_ path: String) async throws -> Data {
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
        return try #require(try await control.send(HTTPRequest(method: .get, url: url)) { _ in }.body.data)
    }
}

/// The calling thread's identity (`pthread_t` is an integer on Linux, a pointer on Darwin).
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
