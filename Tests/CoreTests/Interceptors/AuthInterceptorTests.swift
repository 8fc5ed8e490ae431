import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore

/// Hands out `Bearer old` first and `Bearer new` after a refresh, counting refreshes.
struct RotatingTokens: CredentialProvider {
    let refreshes = Collector<Int>()
    let fails: Bool

    init(fails: Bool = false) { self.fails = fails }

    func credential() async throws -> String { "Bearer old" }

    func refreshedCredential(after rejected: String) async throws -> String {
        refreshes.append(1)
        await Task.yield()
        if fails {
            throw RestingError.transportFailed(
                TransportError(kind: .connectionFailed, code: 0, domain: "auth", message: "token service down"))
        }
        return "Bearer new"
    }
}

@Suite("Auth interceptor")
struct AuthInterceptorTests {
    let endpoint = Endpoint<Nothing, Nothing>(.get, "/me/{{n}}", encoding: .query)

    @Test("50 concurrent 401s cause exactly one refresh; every request succeeds, none is sent more than twice")
    func singleFlightRefresh() async throws {
        let arrivals = Collector<String>()
        let transport = ClosureHTTPClient { request in
            let id = request.url.lastPathComponent
            arrivals.append(id)
            if request.headers["Authorization"] == "Bearer new" { return HTTPDataResponse(status: 200) }
            // Hold the first round until all 50 have arrived, so that their 401s truly overlap.
            await arrivals.wait { $0.count >= 50 }
            return HTTPDataResponse(status: 401)
        }
        let tokens = RotatingTokens()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            interceptors: [AuthInterceptor(provider: tokens)])
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<50 {
                group.addTask {
                    try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": n])).value.status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
        #expect(tokens.refreshes.all.count == 1)
        let sends = Dictionary(grouping: arrivals.all, by: { $0 }).mapValues(\.count)
        #expect(sends.count == 50 && sends.values.allSatisfy { $0 == 2 })
    }

    @Test("a later request uses the refreshed credential without refreshing again")
    func refreshedCredentialIsKept() async throws {
        let transport = ClosureHTTPClient { request in
            HTTPDataResponse(status: request.headers["Authorization"] == "Bearer new" ? 200 : 401)
        }
        let tokens = RotatingTokens()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport, interceptors: [AuthInterceptor(provider: tokens)]
        )
        for n in 0..<3 {
            _ = try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": n])).value
        }
        #expect(tokens.refreshes.all.count == 1)
    }

    @Test("when the refresh fails, the failure hook runs and the 401 reaches the caller")
    func refreshFailure() async throws {
        let transport = ClosureHTTPClient { _ in HTTPDataResponse(status: 401) }
        let failures = Collector<String>()
        let auth = AuthInterceptor(provider: RotatingTokens(fails: true)) { error in failures.append("\(error)") }
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport, interceptors: [auth])
        do {
            _ = try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])).value
            Issue.record("expected a 401")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 401)
        }
        #expect(failures.all.count == 1 && failures.all[0].contains("token service down"))
    }

    @Test("a server that keeps answering 401 gets each request twice, never in a loop")
    func neverLoops() async throws {
        let sends = Collector<Int>()
        let transport = ClosureHTTPClient { _ in
            sends.append(1)
            return HTTPDataResponse(status: 401)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            interceptors: [AuthInterceptor(provider: RotatingTokens())])
        await #expect(throws: RestingError.self) {
            try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])).value
        }
        #expect(sends.all.count == 2)
    }

    @Test("Basic and Bearer helpers send the standard headers")
    func helpers() async throws {
        let seen = Collector<String>()
        let transport = ClosureHTTPClient { request in
            seen.append(request.headers["Authorization"] ?? "")
            return HTTPDataResponse(status: 200)
        }
        for auth in [AuthInterceptor.basic(username: "Aladdin", password: "open sesame"), .bearer(token: "abc")] {
            let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport, interceptors: [auth])
            _ = try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["n": 1])).value
        }
        #expect(seen.all == ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Bearer abc"])
    }
}
