import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// A transport used without a client follows redirects, and is validated, as the chain would.
@Suite("RedirectingHTTPClient")
struct RedirectingHTTPClientTests {
    let base = URL(string: "https://api.example.com")!

    @Test("follows a redirect between routes, rewriting the method and dropping credentials across origins")
    func follows() async throws {
        let stub = StubHTTPClient()
        stub.register(.post, "/login", .status(302, headers: ["Location": "https://other.example.net/home"]))
        stub.register(.get, "/home", .text("home"))
        let request = HTTPRequest(
            method: .post, url: base.appendingPathComponent("login"), headers: ["Authorization": "Bearer secret"],
            body: .bytes(Data("credentials".utf8)))
        let response = try await RedirectingHTTPClient(stub).send(request) { _ in }
        #expect(response.status == 200 && response.body.data == Data("home".utf8))
        let hop = try #require(stub.received.last?.request)
        #expect(hop.method == .get && hop.body.isEmpty && hop.headers["Authorization"] == nil)
    }

    @Test("with maximumRedirects 0, or a request that does not follow, the 3xx is the answer")
    func notFollowing() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/old", .status(301, headers: ["Location": "/new"]))
        let request = HTTPRequest(method: .get, url: base.appendingPathComponent("old"))
        #expect(try await RedirectingHTTPClient(stub, maximumRedirects: 0).send(request) { _ in }.status == 301)
        var once = request
        once.followsRedirects = false
        #expect(try await RedirectingHTTPClient(stub).send(once) { _ in }.status == 301)
        #expect(stub.received.count == 2)
    }

    @Test("a request no server may see fails typed before it reaches the transport")
    func validates() async throws {
        let stub = StubHTTPClient()
        let request = HTTPRequest(
            method: .get, url: base.appendingPathComponent("x"), headers: ["X-Injected": "a\r\nHost: evil"])
        let error = await #expect(throws: RestingError.self) {
            try await RedirectingHTTPClient(stub).send(request) { _ in }
        }
        guard case .invalidHeader = error else {
            Issue.record("expected invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(stub.received.isEmpty)
    }

    @Test("shutting the wrapper down shuts its transport down; a warm-up goes to the transport too")
    func forwardsLifecycle() async throws {
        final class Transport: HTTPClient {
            let calls = Locked<[String]>([])
            func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
                HTTPDataResponse(status: 204, url: request.url)
            }
            func shutdown(gracePeriod: Duration?) async {
                calls.withLock { $0.append("shutdown \(gracePeriod.map { "\($0)" } ?? "nil")") }
            }
            func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields) async throws -> ConnectionWarmUp
            {
                calls.withLock { $0.append("warm \(count) \(url.absoluteString)") }
                return ConnectionWarmUp(answered: count, opened: count)
            }
        }
        let transport = Transport()
        let wrapper = RedirectingHTTPClient(transport)
        #expect(try await wrapper.warmConnections(2, to: base, headers: [:]).opened == 2)
        await wrapper.shutdown(gracePeriod: .seconds(1))
        #expect(transport.calls.withLock { $0 } == ["warm 2 https://api.example.com", "shutdown 1.0 seconds"])
    }
}
