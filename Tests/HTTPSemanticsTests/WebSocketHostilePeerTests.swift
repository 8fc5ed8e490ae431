import Foundation
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCore
@testable import RestingWebSocket

/// WebSockets on `CurlClient` against a peer that closes while a send to it is stuck, floods a reader that lags, or
/// closes with a code registered after RFC 6455: what a correct socket does, each wait under a hang detector.
@Suite("WebSocket against a peer that closes, floods or lags", .timeLimit(.minutes(5)))
struct WebSocketHostilePeerTests {
    static let server = Task { try await LocalServer.start(script: WebSocketTests.script) }
    static let transport = Result { try CurlClient() }
    /// A hang detector, far above what a run under a sanitizer on two cores takes.
    static let limit = Duration.seconds(60)

    struct Stats: Decodable {
        let sent: Int
        let closed: Int?
        let stalled: Bool
        let queued: Int
    }

    func client(listener: (any CallEventListener)? = nil) async throws -> RestingClient {
        RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try Self.transport.get(),
            eventListener: listener.map { .shared($0) })
    }

    func get(_ pathAndQuery: String) async throws -> Data {
        let url = try #require(URL(string: "\(try await Self.server.value.baseURL)\(pathAndQuery)"))
        let response = try await Self.transport.get().send(HTTPRequest(method: .get, url: url)) { _ in }
        return try await response.body.collect(upTo: 1 << 16)
    }

    func stats(_ tag: String, _ query: String) async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await get("/stats?tag=\(tag)&\(query)"))
    }

    /// Resumes whoever waits once an event of `kind` has been seen.
    final class EventWaiter: CallEventListener {
        private let state = Locked<(seen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        let matches: @Sendable (CallEvent.Kind) -> Bool

        init(_ matches: @escaping @Sendable (CallEvent.Kind) -> Bool) { self.matches = matches }

        func handle(_ event: CallEvent) {
            guard matches(event.kind) else { return }
            let waiters = state.withLock { state in
                state.seen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let seen = state.withLock { state in
                    if !state.seen { state.waiters.append(continuation) }
                    return state.seen
                }
                if seen { continuation.resume() }
            }
        }
    }

    /// `operation` under the hang detector; a hang is recorded as `name`'s.
    @discardableResult
    func step<Value: Sendable>(_ name: String, _ operation: @escaping @Sendable () async -> Value) async throws
        -> Value
    {
        do {
            return try await finishing(within: Self.limit, operation)
        } catch let hang as Hang {
            Issue.record("\(name) \(hang)")
            throw hang
        }
    }

    // MARK: Close codes

    @Test(
        "a server's close with a registered code (1012 service restart, 1013 try again later, 1014 bad gateway) ends the messages cleanly with that code",
        arguments: [1012, 1013, 1014] as [UInt16])
    func registeredCloseCodes(_ code: UInt16) async throws {
        let socket = try await client().openWebSocket(
            "/echo?close=\(code)&reason=restart", options: WebSocketOptions(compression: nil))
        let outcome = try await finishing(within: Self.limit) {
            await Result { () async throws -> Int in
                var count = 0
                for try await _ in socket { count += 1 }
                return count
            }
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: code), reason: "restart"))
    }

    // MARK: The peer's close while a send is stuck

    @Test("after the peer's close frame, a send stuck on that peer (which reads nothing) ends and so does reading")
    func peerClosesWhileASendIsStuck() async throws {
        let tag = "hostile-peer-close-stuck"
        let socket = try await client().openWebSocket(
            "/echo?stall=1&close_on_release=1000&tag=\(tag)",
            options: WebSocketOptions(compression: nil, closeTimeout: .milliseconds(300)))
        let send = Task { try await socket.send(WebSocketStalledPeerTests.stuckMessage) }
        // Bytes of the message wait in the peer's socket: the send has begun and cannot end while it reads nothing.
        _ = try await stats(tag, "queued=65536")
        _ = try await get("/release?tag=\(tag)")  // the peer sends its close frame, and still reads nothing
        try await step("reading the socket to its end") {
            await Result { () async throws -> Void in for try await _ in socket {} }
        }
        let sent = try await step("the stuck send") { await send.result }
        #expect { try sent.get() } throws: { $0 is any CallFailure }
    }

    /// A socket whose peer reads nothing, with a send stuck on it, once the peer's close frame has been read; made
    /// on `client` (by default one with the listener that waits for that frame).
    func peerClosedWhileASendIsStuck(_ tag: String, on client: RestingClient? = nil, waiting peerClosed: EventWaiter)
        async throws -> (socket: WebSocket, send: Task<Void, any Error>)
    {
        let client = if let client { client } else { try await self.client(listener: peerClosed) }
        let socket = try await client.openWebSocket(
            "/echo?stall=1&close_on_release=1000&tag=\(tag)",
            options: WebSocketOptions(compression: nil, closeTimeout: .milliseconds(300)))
        let send = Task { try await socket.send(WebSocketStalledPeerTests.stuckMessage) }
        _ = try await stats(tag, "queued=65536")
        _ = try await get("/release?tag=\(tag)")
        try await step("the peer's close frame read") { await peerClosed.wait() }
        return (socket, send)
    }

    static func peerClosing() -> EventWaiter {
        EventWaiter { kind in
            if case .closing(_, byPeer: true) = kind.capabilityEvent(as: WebSocketEvent.self) { return true }
            return false
        }
    }

    @Test("after the peer's close frame, close() ends the socket and the send stuck on that peer")
    func closeAfterPeerClosedWhileASendIsStuck() async throws {
        let (socket, send) = try await peerClosedWhileASendIsStuck(
            "hostile-peer-close-stuck-close", waiting: Self.peerClosing())
        try await step("socket.close()") { await socket.close() }
        let sent = try await step("the stuck send, after close()") { await send.result }
        #expect { try sent.get() } throws: { $0 is any CallFailure }
    }

    @Test("after the peer's close frame, with a send stuck on that peer, RestingClient.shutdown(gracePeriod:) returns")
    func shutdownAfterPeerClosedWhileASendIsStuck() async throws {
        let peerClosed = Self.peerClosing()
        let client = try await client(listener: peerClosed)
        let (_, send) = try await peerClosedWhileASendIsStuck(
            "hostile-peer-close-stuck-shutdown", on: client, waiting: peerClosed)
        try await step("client.shutdown(gracePeriod: 10 ms)") { await client.shutdown(gracePeriod: .milliseconds(10)) }
        let sent = try await step("the stuck send, after shutdown") { await send.result }
        #expect { try sent.get() } throws: { $0 is any CallFailure }
    }

    // MARK: A full inbox while closing

    @Test("close() on a socket whose inbox is full completes the close handshake with the peer's answer (1000)")
    func closeWithAFullInbox() async throws {
        let tag = "hostile-full-inbox-close"
        let options = WebSocketOptions(receiveBufferSize: 1, compression: nil, closeTimeout: .seconds(3))
        let socket = try await client().openWebSocket("/echo?flood=100&size=65536&tag=\(tag)", options: options)
        // The flood found the socket full: the reading loop waits for room in the inbox, which nobody makes.
        #expect(try await stats(tag, "stalled=1").stalled)
        try await finishing(within: Self.limit) { await socket.close() }
        #expect(socket.closure == WebSocketClosure(code: .normalClosure))
    }

    // MARK: Keep-alive and a slow reader

    @Test(
        "the keep-alive does not fail a socket whose peer answers its pings while the reader is slow; no message is lost"
    )
    func keepAliveWithASlowReader() async throws {
        let tag = "hostile-keepalive-slow-reader"
        let options = WebSocketOptions(
            receiveBufferSize: 1,
            keepAlive: .init(interval: .milliseconds(50), timeout: .milliseconds(300)), compression: nil)
        let socket = try await client().openWebSocket("/echo?flood=3&size=100&tag=\(tag)", options: options)
        #expect(try await stats(tag, "at_least=3").sent == 3)
        // The reader under test is slow: it comes back after several keep-alive timeouts (not a synchronisation).
        try await Task.sleep(for: .seconds(1.5))
        let outcome = try await finishing(within: Self.limit) {
            await Result { () async throws -> [WebSocketMessage] in
                var messages: [WebSocketMessage] = []
                var iterator = socket.makeAsyncIterator()
                for _ in 0..<3 { if let message = try await iterator.next() { messages.append(message) } }
                return messages
            }
        }
        #expect(throws: Never.self) { try outcome.get() }
        #expect((try? outcome.get())?.count == 3)
        await socket.close()
    }

    // MARK: The inbox's memory

    @Test("the inbox releases each message once its reader has taken it, even while the reader stays behind")
    func inboxReleasesTakenMessages() async throws {
        let inbox = WebSocketInbox(capacity: 1 << 20)
        let released = Locked(0)
        func message() -> WebSocketMessage {
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 1)
            return .binary(
                Data(
                    bytesNoCopy: bytes, count: 1024,
                    deallocator: .custom { pointer, _ in
                        pointer.deallocate()
                        released.withLock { $0 += 1 }
                    }))
        }
        // The reader is one message behind the socket: there is always one message kept when it takes the next.
        _ = await inbox.put(message())
        for _ in 0..<1000 {
            _ = await inbox.put(message())
            _ = try await inbox.next()
        }
        // 1000 messages taken and dropped by the reader, one still kept.
        #expect(released.withLock { $0 } >= 999, "messages the reader took and dropped, still held by the inbox")
    }
}
