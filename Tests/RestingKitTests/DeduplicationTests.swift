import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import Testing

@Suite("In-flight de-duplication against image_server")
struct DeduplicationTests {
    struct Hits: Decodable, Sendable {
        let key: String
        let hits: Int
    }

    /// Counts the calls that reached it, and lets them all on once `expected` have.
    actor Arrivals {
        private let expected: Int
        private var count = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(expected: Int) { self.expected = expected }

        func arrive() {
            count += 1
            guard count >= expected else { return }
            for waiter in waiting { waiter.resume() }
            waiting.removeAll()
        }

        func untilAllArrived() async {
            guard count < expected else { return }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// Before the de-duplication: counts each call. After it: holds the one request that goes on until every call
    /// has arrived, so that none can come after the shared response (a loaded machine starts 100 tasks slowly).
    struct Gate: RestingInterceptor {
        let arrivals: Arrivals
        let holds: Bool

        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            if holds { await arrivals.untilAllArrived() } else { await arrivals.arrive() }
            return try await execution(request)
        }
    }

    @Test("100 concurrent identical GETs reach the server once and all get the response")
    func hundredIdenticalGets() async throws {
        let server = try await LocalServer.sharedImageServer.value
        let arrivals = Arrivals(expected: 100)
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: try CurlClient(),
            interceptors: [
                Gate(arrivals: arrivals, holds: false), DeduplicationInterceptor(),
                Gate(arrivals: arrivals, holds: true),
            ])
        let key = UUID().uuidString
        let counted = Endpoint<Nothing, Hits>(.get, "/counted/{{key}}?delay_ms=300", encoding: .query)
        let hits = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await client.perform(RestingRequest(endpoint: counted, pathVariables: ["key": key])).value.body
                        .hits
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(hits.count == 100 && hits.allSatisfy { $0 == 1 })
        let total = Endpoint<Nothing, Hits>(.get, "/hits/{{key}}", encoding: .query)
        #expect(
            try await client.perform(RestingRequest(endpoint: total, pathVariables: ["key": key])).value.body.hits == 1)
    }
}
