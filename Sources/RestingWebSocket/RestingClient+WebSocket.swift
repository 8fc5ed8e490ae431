import RestingCore

extension RestingClient {
    /// Opens a WebSocket: `request`'s endpoint (a `GET`; its path template, providers, query and headers as for any
    /// call) is the handshake, which passes the interceptors, the cookie jar, redirects and the credential boundary
    /// and counts as one call — for the concurrency limit while it lasts, for ``/RestingCore/RestingClient/cancelAll()`` and shutdown until the
    /// socket closes, and in the events until then.
    ///
    /// ```swift
    /// let updates = Endpoint<Nothing, Nothing>(.get, "/rooms/{{room}}/live")
    /// let socket = try await client.webSocket(RestingRequest(endpoint: updates, pathVariables: ["room": "42"]))
    /// for try await message in socket { … }
    /// ```
    ///
    /// The base URL may be `http(s)` or `ws(s)`; the handshake goes as `http(s)` either way (RFC 6455 §3). A status
    /// other than `101` fails as any call's unaccepted status does: ``/RestingCore/RestingError/httpError(_:)`` with the status,
    /// headers and body (or the app's error type). A transport that cannot upgrade a connection fails with
    /// ``/RestingCore/RestingError/unsupported(feature:transport:)``.
    public func webSocket<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, options: WebSocketOptions = WebSocketOptions()
    ) async throws -> WebSocket {
        // A `ws(s)` base URL is converted as the `http(s)` it stands for (RFC 6455 §3): cookies, credentials and the
        // transport then see the origin they know.
        let baseUrl = Self.httpEquivalent(of: self.baseUrl)
        return try await inCallingTask { events in
            try await Call(self, request, baseUrl: baseUrl).respond(
                WebSocketHandshake(options: options), .unobserved(events: events))
        }
    }

    /// `url` with `ws:` as `http:` and `wss:` as `https:`; any other URL as it is.
    static func httpEquivalent(of url: String) -> String {
        for (webSocket, http) in [("wss://", "https://"), ("ws://", "http://")]
        where url.lowercased().hasPrefix(webSocket) {
            return http + url.dropFirst(webSocket.count)
        }
        return url
    }
}
