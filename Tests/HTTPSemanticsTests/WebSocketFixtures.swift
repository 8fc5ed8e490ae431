import RestingCore
import RestingWebSocket
import Testing

extension RestingClient {
    /// Opens a WebSocket to `path` on this client's base URL.
    func openWebSocket(_ path: String, options: WebSocketOptions = WebSocketOptions()) async throws -> WebSocket {
        try await webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, path)), options: options)
    }
}

extension WebSocket {
    /// The next message, failing the test when the messages ended.
    func nextMessage() async throws -> WebSocketMessage {
        var iterator = makeAsyncIterator()
        return try #require(try await iterator.next())
    }
}
