import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCookies
@testable import RestingCore

/// The jars: the interceptor that applies them, the in-memory jar's clock, and the persistent jar's file —
/// atomic, private, surviving `kill -9` without losing an acknowledged cookie.
@Suite("Cookie jars")
struct CookieJarTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rk-cookies-\(UUID().uuidString)")
    }

    @Test(
        "the interceptor sends the jar's cookies after the request's own, stores Set-Cookie, and marks the header sensitive"
    )
    func interceptorAppliesJar() async throws {
        let stub = StubHTTPClient()
        stub.register(
            .get, "/login",
            .status(
                200, headers: HTTPHeaderFields([("Set-Cookie", "session=s1; Path=/"), ("Set-Cookie", "theme=dark")])))
        stub.register(.get, "/me", .status(200))
        let jar = InMemoryCookieJar()
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, networkInterceptors: [CookieInterceptor(jar: jar)])
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/login", encoding: .query))
        ).value
        _ = try await client.perform(
            RestingRequest(
                endpoint: Endpoint<Nothing, Nothing>(.get, "/me", encoding: .query),
                headers: ["Cookie": "own=1"])
        ).value
        let sent = try #require(stub.received.last?.request)
        #expect(sent.headers["Cookie"] == "own=1; session=s1; theme=dark")
        #expect(sent.headers.first { $0.name == "Cookie" }?.isSensitive == true)
        #expect(!sent.description.contains("s1"), "the cookie's value is redacted when the request is printed")
        #expect(!"\(jar.allCookies)".contains("s1"), "and when a cookie is")
    }

    @Test("a session cookie lives as long as the in-memory jar; a Max-Age cookie expires on the jar's clock")
    func inMemoryExpiry() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let jar = InMemoryCookieJar(now: { clock.withLock { $0 } })
        let url = URL(string: "https://example.com/")!
        try await jar.receive(setCookieFields: ["session=1", "short=2; Max-Age=60"], from: url)
        #expect(await jar.cookies(for: url).map(\.name) == ["session", "short"])
        clock.withLock { $0 += 61 }
        #expect(await jar.cookies(for: url).map(\.name) == ["session"])
        jar.removeAll()
        #expect(await jar.cookies(for: url).isEmpty)
    }

    @Test("the persistent jar reloads its persistent cookies, not session ones, from a private directory")
    func persistence() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://example.com/app")!
        let jar = try PersistentCookieJar(directory: directory)
        try await jar.receive(
            setCookieFields: ["remember=me; Max-Age=3600; Path=/", "session=tab", "gone=x; Max-Age=3600"], from: url)
        try await jar.receive(setCookieFields: ["gone=; Max-Age=0"], from: url)

        let reopened = try PersistentCookieJar(directory: directory)
        #expect(reopened.allCookies.map(\.name) == ["remember"])
        #expect(await reopened.cookies(for: url).first?.value == "me")
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        try reopened.removeAll()
        #expect(try PersistentCookieJar(directory: directory).allCookies.isEmpty)
    }

    @Test("a damaged cookie file is set aside and the jar starts empty, rather than failing the app or serving it")
    func damagedFile() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("[{\"name\": \"half".utf8).write(to: directory.appendingPathComponent(PersistentCookieJar.fileName))
        let jar = try PersistentCookieJar(directory: directory)
        #expect(jar.allCookies.isEmpty)
        #expect(
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("quarantine/\(PersistentCookieJar.fileName)").path))
        try await jar.receive(setCookieFields: ["fresh=1; Max-Age=60"], from: URL(string: "https://example.com/")!)
        #expect(try PersistentCookieJar(directory: directory).allCookies.map(\.name) == ["fresh"])
    }

    @Test("100 concurrent responses setting cookies: the file holds every one once the last is acknowledged")
    func concurrentWrites() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = try PersistentCookieJar(directory: directory)
        let url = URL(string: "https://example.com/")!
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask { try await jar.receive(setCookieFields: ["c\(index)=\(index); Max-Age=600"], from: url) }
            }
            try await group.waitForAll()
        }
        #expect(
            try PersistentCookieJar(directory: directory).allCookies.count == 50,
            "the per-domain limit holds on disk too")
    }

    // Each probe run costs a process start; under a sanitizer fewer rounds keep the suite within its time.
    @Test(
        "killed with SIGKILL at random points while storing, the jar loses no acknowledged cookie and never corrupts",
        .timeLimit(.minutes(5)))
    func crashSafety() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var acknowledged = Set<Int>()
        var kills = 0
        let rounds = Probe.underSanitizer ? 15 : 60
        for round in 0..<rounds {
            // 40 cookies a round stay within the per-domain limit of 50 with what earlier rounds kept.
            let lines = try await Probe.run(
                ["cookies", directory.path, "\(round * 40)", "40"], killAfter: Int.random(in: 0...8))
            kills += 1
            let okay = lines.compactMap { $0.hasPrefix("ok ") ? Int($0.dropFirst(3)) : nil }
            acknowledged = Set(okay)  // each round's cookies replace what the per-domain limit lets go of
            let jar = try PersistentCookieJar(directory: directory)
            #expect(
                !FileManager.default.fileExists(atPath: directory.appendingPathComponent("quarantine").path),
                "never a damaged file")
            let stored = Set(jar.allCookies.map(\.name))
            // c(n) with (n + 1) % 3 == 0 may have been deleted by c(n + 1), stored but killed before its "ok".
            for n in acknowledged where (n + 1) % 3 != 0 {
                #expect(stored.contains("c\(n)"), "acknowledged c\(n) lost after kill \(kills)")
            }
            for n in acknowledged where (n + 1) % 3 == 0 && acknowledged.contains(n + 1) {
                #expect(!stored.contains("c\(n)"), "acknowledged deletion of c\(n) lost after kill \(kills)")
            }
        }
        print("cookie jar crash test: \(kills) SIGKILLs, every acknowledged cookie and deletion found after each")
    }
}
