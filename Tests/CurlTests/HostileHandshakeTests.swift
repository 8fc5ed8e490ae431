import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCurl

/// A WebSocket handshake that a server refuses is read by `CurlClient` itself (``HTTPBodyReader``): whatever that
/// answer holds — a 70-byte chunked body whose second chunk claims 2^63 − 1 bytes, a trailer section that never ends
/// — the client fails the call typed, within its size limit, and its process lives on.
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
}
