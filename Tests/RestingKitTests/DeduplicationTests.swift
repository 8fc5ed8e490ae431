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

    @Test("100 concurrent identical GETs reach the server once and all get the response")
    func hundredIdenticalGets() async throws {
        let server = try await LocalServer.sharedImageServer.value
        let client = RestingClient(
            baseUrl: server.baseURL, httpClient: try CurlClient(), interceptors: [DeduplicationInterceptor()])
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
