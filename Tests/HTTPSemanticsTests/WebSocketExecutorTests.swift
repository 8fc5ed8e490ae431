import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingWebSocket
import Testing

/// `WebSocket.executor`: the thread that reads a `CurlClient` socket, where its reading loop runs and where a user's
/// receive loop may run too — and the ways a socket and its transport end, called from a loop there (a shutdown
/// awaited there is among WebSocketTests' shutdown contexts).
@Suite("A WebSocket's executor", .timeLimit(.minutes(5)))
struct WebSocketExecutorTests {
    static let server = Task { try await LocalServer.start(script: WebSocketTests.script) }

    func client(_ transport: any HTTPClient) async throws -> RestingClient {
        RestingClient(baseUrl: try await Self.server.value.baseURL, httpClient: transport)
    }

    @Test("a receive loop on the socket's executor sends, reads every echo in order, and closes there")
    func echoLoop() async throws {
        let socket = try await client(try CurlClient()).openWebSocket("/echo")
        let threads = try await Task(executorPreference: socket.executor) {
            var messages = socket.makeAsyncIterator()
            var threads: Set<String?> = []
            for index in 0..<200 {
                try await socket.send("message \(index)")
                #expect(try await messages.next() == .text("message \(index)"))
                threads.insert(currentThreadName())
            }
            await socket.close()
            return threads
        }.value
        #expect(threads == ["resting-poll"])
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    @Test("a loop waiting on the socket's executor ends when its transport shuts down, awaited from elsewhere")
    func transportShutdownEndsTheLoop() async throws {
        let transport = try CurlClient()
        let socket = try await client(transport).openWebSocket("/echo")
        let loop = Task(executorPreference: socket.executor) { for try await _ in socket {} }
        await transport.shutdown(gracePeriod: .zero)
        await #expect { try await loop.value } throws: { $0 is any CallFailure }
        #expect(transport.upgrades.count == 0)
    }

    @Test("cancelling a loop on the socket's executor closes the socket; another socket of the transport goes on")
    func cancelledLoop() async throws {
        let client = try await client(try CurlClient())
        let (cancelled, other) = (try await client.openWebSocket("/echo"), try await client.openWebSocket("/echo"))
        let loop = Task(executorPreference: cancelled.executor) { for try await _ in cancelled {} }
        loop.cancel()
        await #expect(throws: RestingError.cancelled) { try await loop.value }
        try await Task(executorPreference: other.executor) {
            try await other.send("still open")
            #expect(try await other.nextMessage() == .text("still open"))
        }.value
        await other.close()
    }

    @Test("a socket outlives its client and transport with its loop on their poller's thread")
    func loopOutlivesItsTransport() async throws {
        let socket = try await client(try CurlClient()).openWebSocket("/echo")
        try await Task(executorPreference: socket.executor) {
            try await socket.send("alone")
            #expect(try await socket.nextMessage() == .text("alone"))
            await socket.close()
        }.value
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }
}

/// The name of the thread the caller runs on (`Thread.current` is for synchronous code).
private func currentThreadName() -> String? { Thread.current.name }
