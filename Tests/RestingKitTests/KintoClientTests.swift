import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import RestingTesting
import Testing

@testable import RestingCore

/// The transports the newcomer API's tests run on.
enum EachTransport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl, urlSession

    var testDescription: String { rawValue }

    private static let curlClient = Result { try CurlClient() }
    private static let urlSessionClient = URLSessionClient()

    var client: any HTTPClient {
        get throws {
            switch self {
            case .curl: try Self.curlClient.get()
            case .urlSession: Self.urlSessionClient
            }
        }
    }
}

/// Storage servers shared by the tests of this process: two, so that a next page can be on another origin.
enum StorageServers {
    static let first = Task { try await LocalServer.start(script: LocalServer.storageServerScript) }
    static let second = Task { try await LocalServer.start(script: LocalServer.storageServerScript) }

    /// Sets one of the first server's switches (`backoff`, `unavailable`) for `collection`.
    static func control(_ name: String, _ value: Int, of collection: String) async throws {
        let client = RestingClient(baseUrl: try await first.value.baseURL, httpClient: try EachTransport.curl.client)
        let control = Endpoint<String, Data>(
            .put, "/__control__/{{collection}}/{{name}}", encoding: .raw(contentType: "text/plain"))
        _ = try await client.send(
            RestingRequest(
                endpoint: control, body: "\(value)", pathVariables: ["collection": collection, "name": name]))
    }
}

/// An order in the shop the tests keep: the app's own fields of a record.
struct Order: Codable, Sendable, Equatable {
    var item: String
    var count = 1
    var note: String?
}

@Suite("The worked example: Kinto's API through endpoint functions, on both transports")
struct KintoClientTests {
    /// A client of the first storage server, signed in as `user` (alice, whose account exists from the start).
    func client(
        _ transport: EachTransport, as user: String? = "alice", password: String = "wonderland",
        clock: any InterceptorClock = SystemClock()
    ) async throws -> RestingClient {
        RestingClient.kinto(
            try await StorageServers.first.value.baseURL, transport: try transport.client, user: user,
            password: password, clock: clock)
    }

    /// Alice's orders in a collection of their own.
    func orders(_ transport: EachTransport, clock: any InterceptorClock = SystemClock()) async throws -> Records<Order>
    {
        Records(client: try await client(transport, clock: clock), bucket: "shop", collection: UUID().uuidString)
    }

    @Test("an account signs up anonymously and reads only what is shared with it", arguments: EachTransport.allCases)
    func accountsAndPermissions(transport: EachTransport) async throws {
        let alice = try await client(transport)
        let bucket = "shared-\(UUID().uuidString)"
        try await alice.call(Kinto.bucket(bucket), body: Permissions())
        try await alice.call(Kinto.collection(bucket, "orders"), body: Permissions())
        let orders = Records<Order>(client: alice, bucket: bucket, collection: "orders")
        let tea = try await orders.add(Order(item: "tea"))
        let milk = try await orders.add(Order(item: "milk"))

        let bob = "bob-\(UUID().uuidString)"
        try await client(transport, as: nil).call(Kinto.account(bob), body: ["password": "s3cret"])
        let bobs = Records<Order>(
            client: try await client(transport, as: bob, password: "s3cret"), bucket: bucket, collection: "orders")
        let forbidden = await #expect(throws: KintoError.self) { try await bobs.get(tea.id) }
        #expect(forbidden?.errno == 121)
        #expect(forbidden?.response?.status == 403)

        let permissions = try await orders.share(tea.id, with: ["account:\(bob)"])
        #expect(permissions == Permissions(read: ["account:\(bob)"], write: ["account:alice"]))
        #expect(try await bobs.get(tea.id).fields == Order(item: "tea"))
        var visible: [String] = []
        for try await order in bobs.all() { visible.append(order.id) }
        #expect(visible == [tea.id], "not \(milk.id), which is alice's alone")
        let readOnly = await #expect(throws: KintoError.self) { try await bobs.patch(tea.id, ["count": 2]) }
        #expect(readOnly?.errno == 121)

        let anonymous = Records<Order>(
            client: try await client(transport, as: nil), bucket: bucket, collection: "orders")
        let unauthenticated = await #expect(throws: KintoError.self) { try await anonymous.get(tea.id) }
        #expect(unauthenticated?.errno == 104)
        #expect(unauthenticated?.response?.headers["WWW-Authenticate"] == "Basic realm=\"storage\"")
    }

    @Test(
        "a merge patch changes what it names, refused with 412 once the version it names is old",
        arguments: EachTransport.allCases)
    func conditionalMergePatch(transport: EachTransport) async throws {
        let orders = try await orders(transport)
        let created = try await orders.add(Order(item: "coffee", count: 2, note: "decaf"))
        let patched = try await orders.patch(created.id, ["count": 3, "note": nil], ifStill: created)
        #expect(patched.fields == Order(item: "coffee", count: 3))
        #expect(patched.lastModified > created.lastModified)

        let stale = await #expect(throws: KintoError.self) {
            try await orders.patch(created.id, ["count": 4], ifStill: created)
        }
        #expect(stale?.errno == 114)
        #expect(stale?.response?.status == 412)
        #expect(try await orders.get(created.id).fields?.count == 3)
    }

    @Test("a deleted record is a tombstone, and reading it again is the API's 404", arguments: EachTransport.allCases)
    func deletion(transport: EachTransport) async throws {
        let orders = try await orders(transport)
        let created = try await orders.add(Order(item: "bread"))
        let tombstone = try await orders.delete(created.id)
        #expect(tombstone.id == created.id)
        #expect(tombstone.fields == nil)
        let gone = await #expect(throws: KintoError.self) { try await orders.get(created.id) }
        #expect(gone?.errno == 110)
    }

    @Test(
        "read-modify-write reads again after someone else's write, and gives up after its attempts",
        arguments: EachTransport.allCases)
    func readModifyWrite(transport: EachTransport) async throws {
        let orders = try await orders(transport)
        let created = try await orders.add(Order(item: "eggs", count: 6))
        // Another writer changes the record between each read and write of this client: a 412 each time.
        let meddles = Locked(1)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let meddling = RestingClient(
            baseUrl: try await StorageServers.first.value.baseURL, decoder: decoder, httpClient: try transport.client,
            interceptors: [
                AuthInterceptor.basic(username: "alice", password: "wonderland"),
                RequestRewriter { request in
                    guard request.method == .put else { return request }
                    let meddle = meddles.withLock { remaining in
                        defer { remaining = max(0, remaining - 1) }
                        return remaining > 0
                    }
                    if meddle { _ = try await orders.patch(created.id, ["count": 12]) }
                    return request
                },
            ],
            errorBody: KintoError.self)
        let contested = Records<Order>(client: meddling, bucket: orders.bucket, collection: orders.collection)
        let modified = try await contested.modify(created.id) { $0.count += 1 }
        #expect(modified.fields?.count == 13, "the second attempt read the other writer's 12")

        meddles.withLock { $0 = 2 }
        let refused = await #expect(throws: KintoError.self) {
            try await contested.modify(created.id, attempts: 2) { $0.count += 1 }
        }
        #expect(refused?.errno == 114)
        #expect(try await orders.get(created.id).fields?.count == 12)

        // Concurrent increments: none is lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await orders.modify(created.id, attempts: 10) { $0.count += 1 } } }
            try await group.waitForAll()
        }
        #expect(try await orders.get(created.id).fields?.count == 16)
    }

    @Test(
        "every record arrives through the pages Next-Page announces; since a version, only the changes, tombstones included",
        arguments: EachTransport.allCases)
    func pagesAndChangesSince(transport: EachTransport) async throws {
        let orders = try await orders(transport)
        var ids: [String] = []
        for n in 1...5 { ids.append(try await orders.add(Order(item: "item \(n)")).id) }
        var items: [String] = []
        for try await order in orders.all(pageSize: 2) { items.append(order.fields?.item ?? "") }
        #expect(items == (1...5).map { "item \($0)" })

        let version = try #require(try await orders.snapshot().etagValue)
        _ = try await orders.patch(ids[1], ["count": 2])
        _ = try await orders.delete(ids[3])
        var changes: [(String, Int?)] = []
        for try await change in orders.all(since: version) { changes.append((change.id, change.fields?.count)) }
        #expect(changes.map(\.0) == [ids[1], ids[3]])
        #expect(changes.map(\.1) == [2, nil])
    }

    @Test("a batch adds and deletes in one request, each write with its status", arguments: EachTransport.allCases)
    func batch(transport: EachTransport) async throws {
        let orders = try await orders(transport)
        let old = try await orders.add(Order(item: "old"))
        let statuses = try await orders.batch(
            adding: [Order(item: "a"), Order(item: "b")], deleting: [old.id, "missing"])
        #expect(statuses == [201, 201, 200, 404])
    }

    @Test(
        "polling yields what changed after a snapshot, waiting as long as Backoff and Retry-After ask",
        arguments: EachTransport.allCases)
    func polling(transport: EachTransport) async throws {
        let clock = VirtualClock()
        let orders = try await orders(transport, clock: clock)
        // Another account's client writes, so that only the poll meets the API's Backoff.
        let writer = Records<Order>(client: try await client(transport), bucket: "shop", collection: orders.collection)
        _ = try await writer.add(Order(item: "known"))
        let snapshot = try await orders.snapshot()
        var changes = orders.changes(after: snapshot, every: .milliseconds(100), clock: clock).makeAsyncIterator()

        _ = try await writer.add(Order(item: "first"))
        try await StorageServers.control("backoff", 60, of: orders.collection)
        #expect(try await changes.next()?.map(\.fields?.item) == ["first"])
        try await StorageServers.control("backoff", 0, of: orders.collection)
        try await StorageServers.control("unavailable", 1, of: orders.collection)
        _ = try await writer.add(Order(item: "second"))
        // Only what changed since the last answer, once: the first round an interval after the snapshot, the next
        // after the 60 s the first answer asked for (the poll's schedule and the client's back-off wait together),
        // and the second the 503 between asked for.
        #expect(try await changes.next()?.map(\.fields?.item) == ["second"])
        #expect(clock.sleeps == [.milliseconds(100), .seconds(60), .seconds(1)])
    }

    @Test("an ordinary call after an answer with Backoff waits as long as it asks", arguments: EachTransport.allCases)
    func backoffOnEveryCall(transport: EachTransport) async throws {
        let clock = VirtualClock()
        let orders = try await orders(transport, clock: clock)
        let created = try await orders.add(Order(item: "tea"))
        try await StorageServers.control("backoff", 30, of: orders.collection)
        _ = try await orders.get(created.id)
        try await StorageServers.control("backoff", 0, of: orders.collection)
        #expect(clock.sleeps.isEmpty)
        _ = try await orders.get(created.id)
        #expect(clock.sleeps == [.seconds(30)])
    }

    @Test("the guide states the example's lines of code and the Retrofit client's, both counted by one script")
    func guideLineCount() async throws {
        /// `scripts/count_lines.py`'s count: lines neither blank nor comments.
        func count(_ file: String, _ arguments: String...) async throws -> Int {
            let path = Snippets.repository.appendingPathComponent(file).path
            let script = Snippets.repository.appendingPathComponent("scripts/count_lines.py").path
            let (status, output) = try await ChildProcess.run("/usr/bin/env", ["python3", script, path] + arguments)
            #expect(status == 0)
            return try #require(
                Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let example = try await count("Tests/RestingKitTests/KintoClient.swift", "--snippet", "kinto-client")
        let shown = try await count("Documentation/RestingCore.docc/WholeAPIClient.md", "--fence", "kinto-client")
        let retrofit = try await count(
            "Documentation/RestingCore.docc/WholeAPIClient.md", "--fence", "kinto-client-retrofit")
        #expect(shown == example, "the guide shows the code the tests run")
        let guide = try String(
            contentsOf: Snippets.repository.appendingPathComponent("Documentation/RestingCore.docc/WholeAPIClient.md"),
            encoding: .utf8)
        #expect(guide.contains("is **\(example) lines** of code"), "the guide must say the example is \(example) lines")
        #expect(guide.contains("is\n**\(retrofit) lines** by the same rule"), "and the Retrofit client \(retrofit)")
        let readme = try String(contentsOf: Snippets.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("in \(example) lines of code"), "the README must say the example is \(example) lines")
        #expect(readme.contains("counted alike, in \(retrofit))"), "and the Retrofit client \(retrofit)")
    }
}
