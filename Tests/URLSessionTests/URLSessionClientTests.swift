import Foundation
import RestingConnections
import RestingCore
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What image_server's `/echo` returns.
struct Echo: Decodable {
    let method: String
    let path: String
    let query: [[String]]
    let headers: [[String]]
    let body: String
    let bodyLength: Int

    func values(of header: String) -> [String] {
        headers.filter { $0[0].lowercased() == header.lowercased() }.map { $0[1] }
    }
}

@Suite("URLSessionClient against image_server", .timeLimit(.minutes(5)))
struct URLSessionClientTests {
    let server: LocalServer
    let transport = URLSessionClient()

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    private func request(
        _ method: RequestMethod, _ path: String, headers: HTTPHeaderFields = [:], body: RequestBody = .empty,
        timeout: Duration? = nil
    ) throws -> HTTPRequest {
        HTTPRequest(
            method: method, url: try #require(URL(string: server.baseURL + path)), headers: headers, body: body,
            timeout: timeout)
    }

    private func send(_ request: HTTPRequest) async throws -> HTTPDataResponse {
        try await transport.send(request) { _ in }
    }

    private func echo(_ request: HTTPRequest) async throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: try await send(request).body.bytes)
    }

    @Test("a GET returns status, headers and body")
    func get() async throws {
        let response = try await send(request(.get, "/posts/1"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(try JSONDecoder().decode([String: AnyJSON].self, from: response.body.bytes)["id"] != nil)
        #expect(response.url?.path == "/posts/1")
    }

    @Test(
        "methods, headers and bodies reach the server as sent",
        arguments: [RequestMethod.post, .put, .patch, .delete, "PURGE"])
    func methodsHeadersAndBodies(method: RequestMethod) async throws {
        let body = Data("héllo \(method)".utf8)
        let echoed = try await echo(
            request(method, "/echo/x?a=1&a=2", headers: ["X-One": "1", "X-Two": "2"], body: .bytes(body)))
        #expect(echoed.method == method.rawValue)
        #expect(echoed.query == [["a", "1"], ["a", "2"]])
        #expect(echoed.values(of: "x-one") == ["1"] && echoed.values(of: "X-Two") == ["2"])
        #expect(echoed.body == "héllo \(method)" && echoed.bodyLength == body.count)
    }

    @Test("FoundationNetworking's own cache is off: every GET of a cacheable resource reaches the server")
    func noHiddenCache() async throws {
        struct Hits: Decodable { let requests: Int }
        let key = UUID().uuidString
        for _ in 0..<3 { _ = try await send(request(.get, "/cache/\(key)?max_age=3600")) }
        let hits = try JSONDecoder().decode(
            Hits.self, from: try await send(request(.get, "/cache-hits/\(key)")).body.bytes)
        #expect(hits.requests == 3, "caching is an HTTPCacheInterceptor's job, in sight of every interceptor")
    }

    @Test("a file body is sent whole")
    func fileBody() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("urlsession-\(UUID()).txt")
        let content = String(repeating: "0123456789", count: 10_000)
        try Data(content.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let echoed = try await echo(request(.put, "/echo", body: .file(file)))
        #expect(echoed.bodyLength == content.utf8.count && echoed.body == content)
    }

    @Test("error statuses are responses, not failures", arguments: [404, 500, 503])
    func errorStatusesAreResponses(status: Int) async throws {
        let response = try await send(request(.get, "/status/\(status)"))
        #expect(response.status == status)
        #expect(!response.body.isEmpty)
    }

    @Test("empty bodies arrive empty", arguments: [200, 204, 404])
    func emptyBodies(status: Int) async throws {
        let response = try await send(request(.get, "/empty/\(status)"))
        #expect(response.status == status && response.body.isEmpty)
    }

    @Test("a request slower than its timeout fails with a typed timeout, not sooner and not with the late response")
    func timeout() async throws {
        let started = ContinuousClock.now
        do {
            // The server would answer after 30 s: any outcome but a timeout error means the deadline was missed.
            _ = try await send(request(.get, "/delay/30000", timeout: .milliseconds(300)))
            Issue.record("expected a timeout")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .timedOut)
            #expect(failure.domain == NSURLErrorDomain && failure.code == URLError.timedOut.rawValue)
        }
        #expect(
            ContinuousClock.now - started >= .milliseconds(300),
            "FoundationNetworking alone fires sub-second timeouts at once")
    }

    @Test("cancelling the task cancels the request with .cancelled")
    func cancellation() async throws {
        let slow = try request(.get, "/delay/10000")
        let call = Task { try await send(slow) }
        // Cancel while the request is in flight (or before it starts: both must end in .cancelled).
        call.cancel()
        do {
            _ = try await call.value
            Issue.record("expected cancellation")
        } catch RestingError.cancelled {
        }
    }

    @Test(
        "cancelling mid-request, while the server holds it, ends the call with .cancelled, not with the late response")
    func cancellationInFlight() async throws {
        let tag = UUID().uuidString
        // Held for two minutes, as in the conformance checks: under a loaded sanitizer run the server's 30 s once
        // ran out between its telling the test that it holds the request and the test's cancel.
        let slow = try request(.get, "/delay/120000?tag=\(tag)")
        let call = Task { try await send(slow) }
        try await server.waitUntilDelaying(tag: tag)
        call.cancel()
        do {
            _ = try await call.value
            Issue.record("expected cancellation")
        } catch RestingError.cancelled {
        }
    }

    @Test("a refused connection is a typed connection failure")
    func connectionRefused() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let refused = HTTPRequest(
            method: .get, url: try #require(URL(string: "http://127.0.0.1:\(refusing.port)/")))
        do {
            _ = try await send(refused)
            Issue.record("expected a failure")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .connectionFailed)
        }
    }

    @Test("an invalid header is refused, never sent")
    func invalidHeaderIsRefused() async throws {
        let client = RestingClient(baseUrl: server.baseURL, httpClient: transport)
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/echo", encoding: .query)
        do {
            _ = try await client.perform(RestingRequest(endpoint: endpoint, headers: ["X-Evil": "a\r\nInjected: 1"]))
                .value
            Issue.record("expected an invalid header error")
        } catch RestingError.invalidHeader(let name, _) {
            #expect(name == "X-Evil")
        }
    }
}

/// Any JSON value, decoded only to be counted or compared for presence.
struct AnyJSON: Decodable {
    init(from decoder: any Decoder) throws {}
}

@Suite("URLSessionClient settings Linux cannot honour")
struct URLSessionUnsupportedTests {
    #if canImport(FoundationNetworking)
    @Test("a proxy on the session configuration fails every call as unsupported instead of being ignored")
    func proxyIsUnsupported() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = ["HTTPEnable": true, "HTTPProxy": "127.0.0.1", "HTTPPort": 3128]
        let client = URLSessionClient(configuration: configuration)
        do {
            _ = try await client.send(HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:1/"))))
            { _ in }
            Issue.record("expected .unsupported")
        } catch RestingError.unsupported(let feature, let transport) {
            #expect(feature.contains("proxies") && transport == "URLSessionClient")
        }
    }
    #endif

    @Test("a request's own proxy route, and a body with trailers, fail as unsupported rather than being ignored")
    func routeAndTrailersAreUnsupported() async throws {
        let client = URLSessionClient(configuration: .ephemeral)
        var routed = HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:1/")))
        routed.attributes.proxy = .direct
        await #expect(
            throws: RestingError.unsupported(feature: "a request's own proxy route", transport: "URLSessionClient")
        ) { _ = try await client.send(routed) { _ in } }
        let withTrailers = HTTPRequest(
            method: .put, url: try #require(URL(string: "http://127.0.0.1:1/")),
            body: .sequence(AsyncStream<Data> { $0.finish() }, trailers: { ["X-Checksum": "abc"] }))
        await #expect(throws: RestingError.unsupported(feature: "request trailers", transport: "URLSessionClient")) {
            _ = try await client.send(withTrailers) { _ in }
        }
    }

    @Test("each connection option URLSession cannot honour fails every call as unsupported, named, never ignored")
    func connectionOptionsAreUnsupported() async throws {
        let options: [(String, (inout ConnectionOptions) -> Void)] = [
            (
                "hostOverrides",
                { $0.hostOverrides = [HostOverride(host: "a.example", port: 80, addresses: ["127.0.0.1"])] }
            ),
            (
                "connectionRoutes",
                { $0.connectionRoutes = [ConnectionRoute(host: "a.example", port: 80, to: "b", port: 81)] }
            ),
            ("localEndpoint", { $0.localEndpoint = .interface("lo") }),
            ("happyEyeballsDelay", { $0.happyEyeballsDelay = .milliseconds(50) }),
            ("tcpKeepAlive", { $0.tcpKeepAlive = TCPKeepAlive() }),
            ("maximumIdleConnections", { $0.maximumIdleConnections = 4 }),
            ("idleConnectionTimeout", { $0.idleConnectionTimeout = .seconds(5) }),
            ("dnsOverHTTPS", { $0.dnsOverHTTPS = "https://127.0.0.1:1/dns-query" }),
            ("dnsCacheLifetime", { $0.dnsCacheLifetime = .zero }),
        ]
        for (name, set) in options {
            var connections = ConnectionOptions()
            set(&connections)
            let client = URLSessionClient(configuration: .ephemeral, connections: connections)
            await #expect(
                throws: RestingError.unsupported(feature: "ConnectionOptions.\(name)", transport: "URLSessionClient")
            ) {
                _ = try await client.send(
                    HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:1/")))
                ) { _ in }
            }
        }
    }
}

@Suite("URLSessionClient streamed bodies", .timeLimit(.minutes(5)))
struct URLSessionStreamingTests {
    @Test("a reader that stops makes the body wait on disk, up to the spill limit, then fail as too large")
    func spillLimit() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let client = URLSessionClient(streamSpillLimit: 1024 * 1024)
        let request = HTTPRequest(
            method: .get, url: try #require(URL(string: "http://127.0.0.1:\(server.port)/bytes/\(8 * 1024 * 1024)")),
            responseStreaming: ResponseStreaming(bufferSize: 64 * 1024))
        let body = try #require(try await client.send(request) { _ in }.body.stream)
        // Nothing is read until URLSession has delivered the whole body (or failed): the file fills meanwhile.
        await client.waitUntilIdle()
        do {
            var received = 0
            for try await chunk in body { received += chunk.count }
            Issue.record("expected the spill limit to end the body, got \(received) bytes")
        } catch RestingError.responseTooLarge(let limit) {
            #expect(limit == 1024 * 1024)
        }
    }
}
