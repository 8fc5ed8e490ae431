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
                        #expect(response.status == 200 && response.body.bytes.count == 2048)
                        outcomes.completed += 1
                    } catch RestingError.cancelled {
                        outcomes.cancelled += 1
                    }
                }
            }
        }
        #expect(outcomes.completed + outcomes.cancelled == (320 / inFlight) * inFlight)
        // A cancel that lost the race with completion is still a message in a driver's mailbox, and a driver may
        // still be returning from the last completion: read the census once every driver has ended the pass it
        // is in (each reads its mail in order).
        let census = await transport.settledCensus()
        #expect(census.live == 0, "every transfer record is freed once its call settled")
    }

    @Test(
        "cancelAll racing sends: each completes or fails .cancelled, no task is cancelled after its send returned, no transfer leaks"
    )
    func cancelAllRacingSends() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        let client = RestingClient(baseUrl: "http://127.0.0.1:\(server.port)", httpClient: transport)
        let request = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/bytes/2048", encoding: .query))
        var outcomes = (completed: 0, cancelled: 0)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let callers = (0..<8).map { _ in
                Task {
                    let outcome = await Result(catching: { try await client.send(request) })
                    return (outcome, cancelledOnReturn: Task.isCancelled)
                }
            }
            for _ in 0..<Int.random(in: 0..<4, using: &generator) { await Task.yield() }
            client.cancelAll()
            for caller in callers {
                let (outcome, cancelledOnReturn) = await caller.value
                switch outcome {
                case .success(let response):
                    #expect(response.status == 200 && response.body.count == 2048)
                    outcomes.completed += 1
                case .failure(RestingError.cancelled):
                    outcomes.cancelled += 1
                case .failure(let error):
                    Issue.record("a send failed with \(error)")
                }
                #expect(caller.isCancelled == cancelledOnReturn, "cancelAll never reaches a task after its send")
            }
        }
        #expect(outcomes.completed + outcomes.cancelled == 320)
        let census = await transport.settledCensus()
        #expect(census.live == 0, "every transfer record is freed once its call settled")
    }
}
