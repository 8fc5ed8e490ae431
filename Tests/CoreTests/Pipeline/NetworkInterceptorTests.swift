import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore

/// Network interceptors run once per exchange on the wire — every hop of a redirect — and application
/// interceptors once per call, around the redirects.
@Suite("Network interceptors")
struct NetworkInterceptorTests {
    /// Counts what it sees and notes each request's path and whether the chain follows its redirects.
    struct Counter: RestingInterceptor {
        let seen = Collector<String>()
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            seen.append("\(request.method) \(request.url.path)\(request.followsRedirects ? " (follows)" : "")")
            return try await execution(request)
        }
    }

    func hopStub() -> StubHTTPClient {
        let stub = StubHTTPClient()
        for hop in 1...3 {
            stub.register(.get, "/hops/\(hop)", .status(302, headers: ["Location": "/hops/\(hop - 1)"]))
        }
        stub.register(.get, "/hops/0", .text("done"))
        return stub
    }

    @Test("a network interceptor sees each hop of a 3-hop redirect; the application interceptor sees one call")
    func hopsAreVisible() async throws {
        let application = Counter()
        let network = Counter()
        let stub = hopStub()
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, interceptors: [application], networkInterceptors: [network])
        let response = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/hops/3", encoding: .query))
        ).value
        #expect(String(decoding: response.body, as: UTF8.self) == "done")
        #expect(application.seen.all == ["GET /hops/3 (follows)"])
        #expect(
            network.seen.all == [
                "GET /hops/3 (follows)", "GET /hops/2 (follows)", "GET /hops/1 (follows)", "GET /hops/0 (follows)",
            ])
        #expect(
            stub.received.map(\.request.url.path) == ["/hops/3", "/hops/2", "/hops/1", "/hops/0"],
            "the transport performed each hop once")
    }

    @Test("a header a network interceptor adds is recomputed for each hop, and never carried to the next")
    func perHopHeaders() async throws {
        struct HostStamp: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.headers.add(name: "X-Hop-Host", value: request.url.host ?? "")
                return try await execution(request)
            }
        }
        let stub = StubHTTPClient()
        stub.register(.get, "/start", .status(307, headers: ["Location": "https://other.example.net/end"]))
        stub.register(.get, "/end", .text("end"))
        let client = RestingClient(baseUrl: baseURL, httpClient: stub, networkInterceptors: [HostStamp()])
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/start", encoding: .query))
        ).value
        #expect(
            stub.received.map { $0.request.headers.values(for: "X-Hop-Host") } == [
                ["api.example.com"], ["other.example.net"],
            ])
    }

    @Test(
        "redirect rules are the transports': credentials dropped across origins, POST becomes GET on 302, limit and loop errors"
    )
    func sameRedirectRules() async throws {
        let stub = StubHTTPClient()
        stub.register(.post, "/login", .status(302, headers: ["Location": "https://elsewhere.example.org/landing"]))
        stub.register(.get, "/landing", .text("landed"))
        stub.register(.get, "/loop", .status(302, headers: ["Location": "/loop"]))
        for hop in 1...3 { stub.register(.get, "/far/\(hop)", .status(301, headers: ["Location": "/far/\(hop + 1)"])) }
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, networkInterceptors: [Counter()], maximumRedirects: 2)

        let login = Endpoint<PostCreateModel, Data>(.post, "/login", encoding: .json)
        _ = try await client.perform(
            RestingRequest(
                endpoint: login, body: PostCreateModel(userId: 1, title: "t", body: "b"),
                headers: ["Authorization": "Bearer secret"])
        ).value
        let landing = try #require(stub.received.last?.request)
        #expect(landing.method == .get && landing.body.isEmpty)
        #expect(landing.headers["Authorization"] == nil, "the credential did not follow to another origin")

        let loop = await restingError {
            try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/loop", encoding: .query)))
                .value
        }
        guard case .transportFailed(let loopFailure)? = loop else {
            Issue.record("expected a loop error, got \(String(describing: loop))")
            return
        }
        #expect(loopFailure.kind == .redirectLoop)
        let far = await restingError {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/far/1", encoding: .query))
            ).value
        }
        guard case .transportFailed(let limitFailure)? = far else {
            Issue.record("expected a limit error, got \(String(describing: far))")
            return
        }
        #expect(limitFailure.kind == .tooManyRedirects, "the client follows as many redirects as the transport would")
    }

    @Test("a network interceptor can answer a hop itself; without network interceptors the transport follows as before")
    func shortCircuitAndDefault() async throws {
        struct AnswerHopOne: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                guard request.url.path == "/hops/1" else { return try await execution(request) }
                return HTTPDataResponse(
                    status: 200, body: ResponseBody(Data("from the interceptor".utf8)), url: request.url)
            }
        }
        let stub = hopStub()
        let client = RestingClient(baseUrl: baseURL, httpClient: stub, networkInterceptors: [AnswerHopOne()])
        let body = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/hops/3", encoding: .query))
        ).value.body
        #expect(String(decoding: body, as: UTF8.self) == "from the interceptor")
        #expect(stub.received.map(\.request.url.path) == ["/hops/3", "/hops/2"])

        let plain = hopStub()
        let application = Counter()
        let plainBody = try await RestingClient(baseUrl: baseURL, httpClient: plain, interceptors: [application])
            .perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/hops/3", encoding: .query))).value.body
        #expect(String(decoding: plainBody, as: UTF8.self) == "done")
        #expect(application.seen.all == ["GET /hops/3 (follows)"])
        #expect(plain.received.count == 4)
    }

    @Test("a request that does not follow redirects gets its 3xx, and still passes the network interceptors once")
    func notFollowing() async throws {
        struct NoFollow: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.followsRedirects = false
                return try await execution(request)
            }
        }
        let network = Counter()
        let stub = hopStub()
        let client = RestingClient(
            baseUrl: baseURL, httpClient: stub, interceptors: [NoFollow()], networkInterceptors: [network],
            acceptedStatusCodes: 200..<400)
        let response = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/hops/3", encoding: .query))
        ).value
        #expect(response.status == 302 && response.headers["Location"] == "/hops/2")
        #expect(network.seen.all == ["GET /hops/3"])
        #expect(stub.received.count == 1)
    }
}
