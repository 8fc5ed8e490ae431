import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import RestingWebSocket
import Testing

@testable import RestingCurl

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket handshake's answer is read by `CurlClient` itself (``HTTPHeadReader``, ``HTTPBodyReader``): whatever
/// it holds — a 70-byte chunked body whose second chunk claims 2^63 − 1 bytes, a trailer section that never ends, a
/// one-digit version, an extension parameter of spaces, a 204 that keeps its connection — the client fails the call
/// typed, promptly and within its size limit, and its process lives on.
@Suite("A refused WebSocket handshake's hostile answer", .timeLimit(.minutes(5)))
struct HostileHandshakeTests {
    static let server = Task {
        try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/Conformance/websocket_server.py"))
    }

    @Test("a chunk size of 2^63 − 1 after a first chunk ends the call as responseTooLarge, not the process")
    func chunkSizeOverflow() async throws {
        let base = try await Self.server.value.baseURL
        let (lines, status) = try await Probe.runToExit(["websocket", base, "/hostile?answer=overflow"])
        #expect(status == 0, "the probe's exit status (128 + a signal's number when one ended it)")
        #expect(lines == ["failed \(RestingError.responseTooLarge(limit: 1 << 20))"])
    }

    @Test("a trailer section that never ends is read no further than the response's size limit")
    func endlessTrailers() async throws {
        var configuration = CurlConfiguration()
        configuration.maximumResponseSize = 1 << 20
        let client = RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try CurlClient(configuration: configuration))
        let handshake = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/hostile?answer=trailers"))
        _ = try await finishing(within: .seconds(60)) {
            await #expect(throws: RestingError.responseTooLarge(limit: 1 << 20)) {
                _ = try await client.webSocket(handshake)
            }
        }
    }

    @Test(
        "chunk sizes that overflow, or add up past the limit, fail typed however the bytes are split",
        arguments: [
            "1\r\na\r\n7fffffffffffffff\r\n", "7fffffffffffffff\r\n", "ffffffffffffffff\r\n",
            "1\r\na\r\n7ffffffffffffffe\r\n", "10000000000000000\r\n", "-1\r\n", "+5\r\nhello\r\n0\r\n\r\n",
            "8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n",
        ])
    func chunkSizes(_ wire: String) async throws {
        for step in [1, 5, 1000] {
            await #expect(throws: RestingError.self) {
                _ = try await HTTPBodyReader.read(
                    head: .init(status: 401, headers: ["Transfer-Encoding": "chunked"]),
                    from: UpgradeExchangeTests.ScriptedConnection(Data(wire.utf8), step: step), limit: 12)
            }
        }
    }

    @Test("trailer lines count against the limit like the body")
    func trailersCount() async throws {
        let trailers = String(repeating: "X-T: \(String(repeating: "t", count: 90))\r\n", count: 20)
        let wire = "2\r\nok\r\n0\r\n\(trailers)\r\n"
        await #expect(throws: RestingError.responseTooLarge(limit: 1024)) {
            _ = try await HTTPBodyReader.read(
                head: .init(status: 401, headers: ["Transfer-Encoding": "chunked"]),
                from: UpgradeExchangeTests.ScriptedConnection(Data(wire.utf8), step: 7), limit: 1024)
        }
        let body = try await HTTPBodyReader.read(
            head: .init(status: 401, headers: ["Transfer-Encoding": "chunked"]),
            from: UpgradeExchangeTests.ScriptedConnection(Data(wire.utf8), step: 7), limit: 4096)
        #expect(body == Data("ok".utf8))
    }

    @Test(
        "a status line `HTTP/1 403 ` (one-digit version, empty reason), or a 101 agreeing to `permessage-deflate; ; …` (a blank parameter), fails the call typed, not the process",
        arguments: ["/hostile?answer=short-status", "/echo?deflate_params=blank-parameter"])
    func answersThatTrapped(_ path: String) async throws {
        let base = try await Self.server.value.baseURL
        let (lines, status) = try await Probe.runToExit(["websocket", base, path])
        #expect(status == 0, "the probe's exit status (128 + a signal's number when one ended it)")
        #expect(lines.count == 1 && lines.first?.hasPrefix("failed") == true, "\(lines)")
    }

    @Test(
        "a 204 or 304 answer (no body, whatever its fields say) fails the handshake with its status at once, not when the connection ends",
        arguments: [("no-content", 204), ("not-modified", 304)])
    func bodylessAnswers(_ answer: String, _ status: Int) async throws {
        var configuration = CurlConfiguration()
        configuration.totalTimeout = .seconds(3)
        let client = RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try CurlClient(configuration: configuration))
        let handshake = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/hostile?answer=\(answer)"))
        let outcome = try await finishing(within: .seconds(30)) {
            await Result { () async throws -> WebSocket in try await client.webSocket(handshake) }
        }
        #expect {
            _ = try outcome.get()
        } throws: { error in
            guard case RestingError.httpError(let failure) = error else {
                Issue.record("the handshake failed with \(error), not with its \(status)")
                return false
            }
            return failure.status == status
        }
    }

    /// A listening socket on 127.0.0.1 that never accepts: connections complete (the backlog), and nothing they
    /// send is ever read. Returns the descriptor and the port.
    static func deafListener() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && listen(descriptor, 4) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    @Test("a handshake whose request head the server never reads fails at its deadline, not never")
    func deafServerHonoursTheDeadline() async throws {
        let (listener, port) = try Self.deafListener()
        defer { close(listener) }
        var configuration = CurlConfiguration()
        configuration.totalTimeout = .seconds(2)
        let transport = try CurlClient(configuration: configuration)
        var request = HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(port)/ws")))
        request.upgrade = .webSocket
        // Larger than the loopback's send and receive buffers together: the head cannot all go out.
        request.headers.add(name: "X-Large", value: String(repeating: "a", count: 16 << 20))
        let head = request
        // Building and sending a 16 MiB head takes seconds under a sanitizer: the limit is a hang detector.
        let outcome = try await finishing(within: .seconds(120)) {
            await Result { () async throws -> Int in try await transport.send(head) { _ in }.status }
        }
        #expect {
            _ = try outcome.get()
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .timedOut
        }
        transport.upgrades.closeAll()
    }

    @Test("an upgraded connection reads what has arrived up to the size asked: a 64 KiB message in a few reads")
    func upgradedReadsAreLarge() async throws {
        let base = try await Self.server.value.baseURL
        let transport = try CurlClient()
        defer { transport.upgrades.closeAll() }
        // The server sends one 64 KiB binary message as soon as the handshake is done.
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: "\(base)/echo?flood=1&size=65536&tag=large-reads")))
        request.upgrade = .webSocket
        request.headers.add(name: "Upgrade", value: "websocket")
        request.headers.add(name: "Connection", value: "Upgrade")
        request.headers.add(name: "Sec-WebSocket-Key", value: "dGhlIHNhbXBsZSBub25jZQ==")
        request.headers.add(name: "Sec-WebSocket-Version", value: "13")
        let response = try await transport.send(request) { _ in }
        let connection = try #require(response.body.upgradedConnection, "status \(response.status)")
        // Once the server has sent it, the whole message waits in the socket.
        let stats = try #require(URL(string: "\(base)/stats?tag=large-reads&at_least=1"))
        _ = try await transport.send(HTTPRequest(method: .get, url: stats)) { _ in }.body.collect(upTo: 1 << 16)
        var (received, reads) = (0, 0)
        while received < 65_540 {  // the message and its 4-byte frame header
            received += try #require(try await connection.read(maximumLength: 64 * 1024)).count
            reads += 1
        }
        // libcurl caps a read at its receive buffer's size: 1 KiB while connecting (what an idle socket keeps), 65
        // reads for this message if it stayed so. The first read returns what the head's read took past the head.
        #expect(reads <= 3, "\(reads) reads for 65,540 bytes")
        connection.close()
    }

    /// Waits until `condition` — a count nothing announces — holds, looking again every 10 ms.
    static func until(_ condition: @escaping @Sendable () -> Bool) async throws {
        _ = try await finishing(within: .seconds(60)) {
            while !condition() { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test("a cancelled handshake to a host that drops SYNs ends its connecting thread, not at the connect timeout")
    func cancelledConnectEndsItsThread() async throws {
        // Linux drops the SYNs that reach a full accept queue, so the connect hangs; elsewhere it may be refused.
        #if os(Linux)
        let silent = try UnresponsiveListener()
        // No connect timeout may end the handshakes before they are cancelled, however loaded the machine.
        var configuration = CurlConfiguration()
        configuration.connectTimeout = .seconds(3600)
        let transport = try CurlClient(configuration: configuration)
        let client = RestingClient(baseUrl: "http://127.0.0.1:\(silent.port)", httpClient: transport)
        let handshakes = (0..<4).map { _ in
            Task { try await client.webSocket(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/ws"))) }
        }
        try await Self.until { transport.upgrades.connectingThreads == 4 }
        for handshake in handshakes { handshake.cancel() }
        for handshake in handshakes {
            await #expect(throws: RestingError.cancelled) { _ = try await handshake.value }
        }
        // The connect timeout is 30 s; the threads end within about a second of the cancellation.
        try await Self.until { transport.upgrades.connectingThreads == 0 }
        #endif
    }
}
