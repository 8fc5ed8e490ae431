import Foundation
import RestingCore
import Testing

@testable import RestingCurl

/// What `CurlClient` reads itself on an upgrade's connection, without a socket: the answer's head (however its bytes
/// are split, what follows it kept for the new protocol) and, for an answer that is not a `101`, its body.
@Suite("Upgrade exchange: heads and bodies read by hand")
struct UpgradeExchangeTests {
    /// A connection whose peer sent `bytes`, read back `step` bytes at a time, then closed.
    final class ScriptedConnection: UpgradedConnection {
        private let chunks: Locked<[Data]>

        init(_ bytes: Data, step: Int) {
            chunks = Locked(stride(from: 0, to: bytes.count, by: step).map { bytes[$0..<min($0 + step, bytes.count)] })
        }

        func read(maximumLength: Int) async throws -> Data? {
            chunks.withLock { chunks in chunks.isEmpty ? nil : Data(chunks.removeFirst().prefix(maximumLength)) }
        }
        func write(_ bytes: Data) async throws {}
        func close() {}
    }

    let switching = Data(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{02}hi".utf8)

    @Test("a 101's head is read whole however its bytes are split, and the bytes after it are kept")
    func splitHead() throws {
        let headLength = try #require(switching.firstRange(of: Data("\r\n\r\n".utf8))).upperBound
        for step in 1...switching.count {
            var reader = HTTPHeadReader()
            var head: HTTPHeadReader.Head?
            var given = 0
            for start in stride(from: 0, to: switching.count, by: step) where head == nil {
                given = min(start + step, switching.count)
                head = try reader.take(switching[start..<given])
            }
            let read = try #require(head, "step \(step)")
            #expect(read.status == 101 && read.headers["Upgrade"] == "websocket")
            // What came with the head's last bytes, exactly: the rest is still in the socket.
            #expect(reader.takeRemainder() == switching[headLength..<given], "step \(step)")
        }
    }

    @Test(
        "a malformed head fails as malformedResponse",
        arguments: [
            "Http/1.1 101 Switching\r\n\r\n", "HTTP/1.1 1O1 Switching\r\n\r\n",
            "HTTP/1.1 101 OK\r\n folded: value\r\n\r\n",
            "HTTP/1.1 101 OK\r\nno colon here\r\n\r\n", "HTTP/1.1 101 OK\r\nBad Name: x\r\n\r\n",
        ])
    func malformedHeads(_ head: String) {
        var reader = HTTPHeadReader()
        #expect {
            _ = try reader.take(Data(head.utf8))
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .malformedResponse
        }
    }

    @Test("a head that never ends fails past 64 KiB instead of growing")
    func endlessHead() throws {
        var reader = HTTPHeadReader()
        #expect(try reader.take(Data("HTTP/1.1 101 OK\r\n".utf8)) == nil)
        #expect(throws: RestingError.self) {
            for _ in 0..<100 { _ = try reader.take(Data("X-Filler: \(String(repeating: "a", count: 1000))\r\n".utf8)) }
        }
    }

    @Test("a refusal's body is read by its length, its chunks (split anywhere), or to the end; past the limit it fails")
    func refusalBodies() async throws {
        let cases: [(HTTPHeaderFields, String, String)] = [
            (["Content-Length": "5"], "hello", "hello"),
            (
                ["Transfer-Encoding": "chunked"], "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n",
                "hello world"
            ),
            ([:], "until the end", "until the end"),
        ]
        for (headers, wire, body) in cases {
            for step in [1, 3, 1000] {
                let connection = ScriptedConnection(Data(wire.utf8), step: step)
                let read = try await HTTPBodyReader.read(
                    head: .init(status: 403, headers: headers), from: connection, limit: 1 << 20)
                #expect(read == Data(body.utf8), "\(headers) by \(step)")
            }
        }
        await #expect(throws: RestingError.responseTooLarge(limit: 4)) {
            _ = try await HTTPBodyReader.read(
                head: .init(status: 403, headers: ["Transfer-Encoding": "chunked"]),
                from: ScriptedConnection(Data("5\r\nhello\r\n0\r\n\r\n".utf8), step: 2), limit: 4)
        }
        await #expect(throws: RestingError.self) {
            _ = try await HTTPBodyReader.read(
                head: .init(status: 403, headers: ["Content-Length": "10"]),
                from: ScriptedConnection(Data("short".utf8), step: 2), limit: 1 << 20)
        }
    }

    @Test("the request head: origin-form target with its query, Host with a non-default port, the fields as given")
    func requestHead() throws {
        var request = HTTPRequest(method: .get, url: try #require(URL(string: "http://[::1]:8080/a%20b?x=1&y=%2F")))
        request.headers.add(name: "Upgrade", value: "websocket")
        let head = String(decoding: UpgradeExchange.head(of: request), as: UTF8.self)
        #expect(head == "GET /a%20b?x=1&y=%2F HTTP/1.1\r\nHost: [::1]:8080\r\nUpgrade: websocket\r\n\r\n")
        let plain = HTTPRequest(method: .get, url: try #require(URL(string: "https://example.com")))
        #expect(
            String(decoding: UpgradeExchange.head(of: plain), as: UTF8.self)
                == "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
    }
}
