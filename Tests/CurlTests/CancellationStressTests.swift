import Foundation
import RestingCore
import RestingServerHarness
import Testing

@testable import RestingCurl

@Suite("Curl cancellation stress", .serialized, .timeLimit(.minutes(5)))
struct CancellationStressTests {
    @Test("random cancels at 1, 8 and 32 in flight never resume twice and leak no transfer", arguments: [1, 8, 32])
    func randomCancels(inFlight: Int) async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        var outcomes = (completed: 0, cancelled: 0)
        let transport = try CurlClient()
        do {
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/bytes/2048"))
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<(320 / inFlight) {
                let calls = (0..<inFlight).map { _ in
                    Task { try await transport.send(HTTPRequest(method: .get, url: url)) { _ in } }
                }
                for call in calls where Bool.random(using: &generator) {
                    if Bool.random(using: &generator) { await Task.yield() }
                    call.cancel()
                }
                for call in calls {
                    do {
                        let response = try await call.value
                        #expect(response.status == 200 && response.body.count == 2048)
                        outcomes.completed += 1
                    } catch RestingError.cancelled {
                        outcomes.cancelled += 1
                    }
                }
            }
        }
        #expect(outcomes.completed + outcomes.cancelled == (320 / inFlight) * inFlight)
        // A cancel that lost the race with completion is still a message in the driver's mailbox, and the driver
        // may still be returning from the last completion: read the census on the driver thread, between its
        // operations, after one more request (the driver reads its mail in order).
        let fence = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(server.port)/bytes/1")))
        ) { _ in }
        #expect(fence.status == 200)
        let census = await Task(executorPreference: transport.executor) { transport.census.current }.value
        #expect(census.doubleResumes == 0)
        #expect(census.live == 0, "every transfer record is freed once its call settled")
    }
}
