import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

// The README's WebSocket example, verbatim between the markers, against image_server.

@Suite("README examples: WebSocket")
struct ReadmeWebSocketExamples {
    @Test("a WebSocket opened from an endpoint: one message out, the answer in, a close")
    func echo() async throws {
        let restingClient = RestingClient(baseUrl: try await LocalServer.sharedImageServer.value.baseURL)
        let output = Collector<String>()
        try await ExampleOutput.$lines.withValue(output) {
            // snippet: websocket
            let chat = Endpoint<Nothing, Nothing>(.get, "/ws/echo")
            let socket = try await restingClient.webSocket(RestingRequest(endpoint: chat))
            try await socket.send("hello")
            for try await message in socket {
                if case .text(let text) = message { print(text) }
                await socket.close()
            }
            // end snippet
        }
        #expect(output.all == ["you said: hello"])
    }
}
