import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 6455's opening handshake (§4.1) as a call's ending: the request gains the upgrade and its fields, passes the
/// whole chain (interceptors, authentication, cookies, redirects, the credential boundary) like any call, and a
/// `101` that completes the handshake becomes a ``WebSocket``. Any other status fails the call as any call's
/// unaccepted status does (``/RestingCore/RestingError/httpError(_:)`` with the status, headers and body, or the app's error).
struct WebSocketHandshake<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    let options: WebSocketOptions
    /// `Sec-WebSocket-Key`: 16 random bytes, base64.
    let key: String

    init(options: WebSocketOptions) {
        self.options = options
        var generator = SystemRandomNumberGenerator()
        key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server answers `key` with: base64(SHA-1(key + RFC 6455's GUID)).
    static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    func prepare(_ request: inout HTTPRequest) throws {
        guard request.method == .get else {
            throw RestingError.encodingFailed(reason: "a WebSocket handshake is a GET, not a \(request.method)")
        }
        request.upgrade = .webSocket
        request.headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        request.headers.replaceOrAdd(name: "Connection", value: "Upgrade")
        request.headers.replaceOrAdd(name: "Sec-WebSocket-Key", value: key)
        request.headers.replaceOrAdd(name: "Sec-WebSocket-Version", value: "13")
        if let compression = options.compression {
            request.headers.replaceOrAdd(
                name: "Sec-WebSocket-Extensions",
                value: PerMessageDeflate.offer(noContextTakeover: compression.noContextTakeover))
        }
        if !options.subprotocols.isEmpty {
            request.headers.replaceOrAdd(
                name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", "))
        }
        try request.headers.validate()
    }

    func statusCheck(_ check: StatusCheck) -> StatusCheck {
        StatusCheck(accepted: 101..<102, alsoAccepted: [], errorBody: check.errorBody, decoder: check.decoder)
    }

    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> WebSocket {
        // A 2xx passes the client's check before this ending's: it is no more an upgrade than a 404.
        guard response.status == 101 else {
            throw call.client.statusCheck(for: call.request.endpoint).failure(
                for: HTTPError(try await response.buffered()))
        }
        if let socket = response.body.upgradedSession as? any TransportWebSocket {
            return try relay(socket, answering: response, of: call, events: events)
        }
        guard let connection = response.body.upgradedConnection else {
            throw RestingError.unsupported(
                feature: "WebSocket (the 101 came without its connection)", transport: "this transport")
        }
        let agreed: Agreement
        do {
            agreed = try validate(response)
        } catch {
            connection.close()
            throw error
        }
        return WebSocket(registry: call.client.calls) { onEnd in
            WebSocketSession(
                connection: connection, options: options, subprotocol: agreed.subprotocol, deflate: agreed.deflate,
                events: events, onEnd: onEnd)
        }
    }

    /// A socket whose transport speaks the protocol and checked the `101` itself: what is left to check is the
    /// subprotocol, which only this side knows it offered.
    private func relay(
        _ socket: any TransportWebSocket, answering response: HTTPDataResponse,
        of call: Call<RequestType, ResponseType>,
        events: CallEventReporter?
    ) throws -> WebSocket {
        let subprotocol: String?
        do {
            subprotocol = try chosenSubprotocol(in: response)
        } catch {
            socket.cancel()
            throw error
        }
        let isCompressed = response.headers.values(for: "Sec-WebSocket-Extensions")
            .contains { $0.lowercased().contains("permessage-deflate") }
        return WebSocket(registry: call.client.calls) { onEnd in
            WebSocketRelay(
                socket: socket, options: options, subprotocol: subprotocol, isCompressed: isCompressed,
                events: events, onEnd: onEnd)
        }
    }

    /// What the server chose among what was offered.
    struct Agreement {
        var subprotocol: String?
        var deflate: PerMessageDeflate?
    }

    /// Checks the `101` against §4.1's list; what the server chose.
    func validate(_ response: HTTPDataResponse) throws(WebSocketFailure) -> Agreement {
        guard response.headers["Upgrade"]?.lowercased() == "websocket" else {
            throw WebSocketFailure(.handshakeInvalid, "the 101 has no 'Upgrade: websocket'")
        }
        let connectionTokens = response.headers.values(for: "Connection")
            .flatMap { $0.split(separator: ",") }.map { String($0).trimmingWhitespace.lowercased() }
        guard connectionTokens.contains("upgrade") else {
            throw WebSocketFailure(.handshakeInvalid, "the 101 has no 'Connection: Upgrade'")
        }
        guard response.headers["Sec-WebSocket-Accept"] == Self.accept(for: key) else {
            throw WebSocketFailure(.handshakeInvalid, "the 101's Sec-WebSocket-Accept does not answer the key sent")
        }
        let extensions = response.headers.values(for: "Sec-WebSocket-Extensions").joined(separator: ", ")
        let deflate = try PerMessageDeflate.agreed(in: extensions, offered: options.compression != nil)
        return Agreement(subprotocol: try chosenSubprotocol(in: response), deflate: deflate)
    }

    /// The subprotocol the `101` names, which must be one offered; `nil` when it names none.
    private func chosenSubprotocol(in response: HTTPDataResponse) throws(WebSocketFailure) -> String? {
        guard let chosen = response.headers["Sec-WebSocket-Protocol"] else { return nil }
        guard options.subprotocols.contains(chosen) else {
            throw WebSocketFailure(.handshakeInvalid, "the server chose a subprotocol that was not offered")
        }
        return chosen
    }
}
