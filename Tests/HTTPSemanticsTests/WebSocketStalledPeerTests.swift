import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingWebSocket
import Testing

/// A WebSocket whose peer stopped reading, with a send stuck on it: a message larger than every buffer between the
/// two sides, some of its bytes already waiting unread in the peer's socket. Every way a user ends a socket must
/// still end it — from the caller, from inside an interceptor and on the transport's executor — and the stuck send
/// must end with it. Each wait runs under a hang detector: a hang fails the test instead of blocking the suite.
@Suite("WebSocket: a peer that stopped reading pins nothing", .timeLimit(.minutes(5)))
struct WebSocketStalledPeerTests {
    /// Larger than the peer's receive buffer and this side's send buffer together (6 and 4 MiB at most on Linux),
    /// and no larger: masking it is the test's own cost, which a sanitizer multiplies. Made per use, not kept in a
    /// static: LeakSanitizer cannot follow the tagged reference a global `Data` keeps to its storage.
    static var stuckMessage: Data { Data(count: 12 << 20) }
    static let limit = Duration.seconds(60)

    struct Stats: Decodable {
        let queued: Int
        let closed: Int?
    }

    /// A socket to a peer that reads nothing, and a task whose send of ``stuckMessage`` is under way and cannot end.
    func stuckSend(
        _ tag: String, client: RestingClient, closeTimeout: Duration = .milliseconds(300),
        keepAlive: WebSocketOptions.KeepAlive? = nil
    ) async throws -> (socket: WebSocket, send: Task<Void, any Error>) {
        let options = WebSocketOptions(keepAlive: keepAlive, compression: nil, closeTimeout: closeTimeout)
        let socket = try await client.openWebSocket("/echo?stall=1&tag=\(tag)", options: options)
        let send = Task { try await socket.send(Self.stuckMessage) }
        // Bytes of the message wait in the peer's socket: the send has begun, and 32 MiB cannot fit.
        _ = try await stats(tag, query: "queued=65536")
        return (socket, send)
    }

    func stats(_ tag: String, query: String) async throws -> Stats {
        let base = try await WebSocketTests.server.value.baseURL
        let url = try #require(URL(string: "\(base)/stats?tag=\(tag)&\(query)"))
        let response = try await WebSocketTests.transport.get().send(HTTPRequest(method: .get, url: url)) { _ in }
        return try JSONDecoder().decode(Stats.self, from: try await response.body.collect(upTo: 1 << 16))
    }

    func client(transport: CurlClient? = nil, interceptors: [any RestingInterceptor] = []) async throws
        -> RestingClient
    {
        RestingClient(
            baseUrl: try await WebSocketTests.server.value.baseURL,
            httpClient: try transport ?? WebSocketTests.transport.get(), interceptors: interceptors)
    }

    /// The stuck send ended with a typed error, not a hang.
    func expectSendEnded(_ send: Task<Void, any Error>) async throws {
        let outcome = try await finishing(within: Self.limit) { await send.result }
        #expect { try outcome.get() } throws: { $0 is any CallFailure }
    }

    @Test("close() returns once its close timeout has passed, and the stuck send fails")
    func closeEnds() async throws {
        let (socket, send) = try await stuckSend("stall-close", client: try await client())
        try await finishing(within: Self.limit) { await socket.close() }
        #expect(socket.closure == WebSocketClosure(code: .abnormalClosure))
        try await expectSendEnded(send)
    }

    @Test("cancelAll() ends the socket and the stuck send; the reader gets .cancelled")
    func cancelAllEnds() async throws {
        let client = try await client()
        let (socket, send) = try await stuckSend("stall-cancel-all", client: client)
        client.cancelAll()
        _ = try await finishing(within: Self.limit) {
            await #expect(throws: RestingError.cancelled) {
                for try await _ in socket {}
            }
        }
        try await expectSendEnded(send)
    }

    @Test("RestingClient.shutdown(gracePeriod:) returns, from the caller and on the transport's executor")
    func shutdownEnds() async throws {
        let transport = try CurlClient()
        for onExecutor in [false, true] {
            let client = try await client(transport: transport)
            let (_, send) = try await stuckSend("stall-shutdown-\(onExecutor)", client: client)
            try await finishing(within: Self.limit, on: onExecutor ? transport.executor : nil) {
                await client.shutdown(gracePeriod: .milliseconds(10))
            }
            try await expectSendEnded(send)
        }
        await transport.shutdown()
    }

    @Test("cancelling the sending task ends its send; the socket, its stream broken, fails as cancelled")
    func cancelledSendEnds() async throws {
        let (socket, send) = try await stuckSend("stall-cancel-send", client: try await client())
        send.cancel()
        try await expectSendEnded(send)
        _ = try await finishing(within: Self.limit) {
            await #expect(throws: RestingError.cancelled) {
                for try await _ in socket {}
            }
        }
    }

    @Test("the keep-alive fails the socket when its ping cannot go out in time")
    func keepAliveEnds() async throws {
        let keepAlive = WebSocketOptions.KeepAlive(interval: .milliseconds(20), timeout: .milliseconds(200))
        let (socket, send) = try await stuckSend(
            "stall-keepalive", client: try await client(), keepAlive: keepAlive)
        _ = try await finishing(within: Self.limit) {
            await #expect {
                for try await _ in socket {}
            } throws: { error in
                guard let failure = error as? WebSocketFailure else { return false }
                return failure.kind == .pingTimeout
            }
        }
        try await expectSendEnded(send)
    }

    @Test("closed from inside another call's interceptor, that call going on")
    func closedFromAnInterceptor() async throws {
        let target = Locked<WebSocket?>(nil)
        let client = try await client(interceptors: [SocketClosingInterceptor(target: target)])
        let (socket, send) = try await stuckSend("stall-interceptor", client: client)
        target.withLock { $0 = socket }
        let plain = Endpoint<Nothing, Nothing>(.get, "/refuse?status=200")
        try await finishing(within: Self.limit) { _ = try await client.send(RestingRequest(endpoint: plain)) }
        #expect(socket.closure != nil)
        try await expectSendEnded(send)
    }
}
