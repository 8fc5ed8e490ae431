import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingURLSession
import Testing

/// A server that refuses an upload before reading its body (`413`, `401`): with `Expect: 100-continue` the body is
/// never sent; without it, the client gets the refusal as its response and stops sending. The conformance server's
/// `/refuse-upload` counts the body bytes that still arrived after its answer: what the refusal cost.
@Suite("Uploads refused before their body", .serialized, .timeLimit(.minutes(5)))
struct EarlyRefusalTests {
    let server: LocalServer

    init() async throws { server = try await LocalServer.sharedConformanceServer.value }

    /// `size` bytes of zeros, produced as they are sent: nothing is held beyond a chunk.
    private static func zeros(_ size: Int64) -> RequestBody {
        let chunk = Data(count: 256 * 1024)
        let chunks = AsyncStream<Data> { continuation in
            for _ in 0..<(size / Int64(chunk.count)) { continuation.yield(chunk) }
            continuation.finish()
        }
        return .sequence(chunks, contentLength: size)
    }

    /// What `/refuse-upload` received after refusing `tag`'s upload.
    private func bytesAfterRefusal(_ tag: String) async throws -> Int {
        struct Count: Decodable { let bytes: Int? }
        let response = try await CurlClient().send(
            HTTPRequest(method: .get, url: try #require(URL(string: "\(server.baseURL)/refused-bytes?tag=\(tag)")))
        ) { _ in }
        return try #require(try JSONDecoder().decode(Count.self, from: response.body.bytes).bytes)
    }

    private func upload(_ body: RequestBody, status: Int, tag: String, through transport: any HTTPClient)
        async throws -> HTTPDataResponse
    {
        let url = try #require(URL(string: "\(server.baseURL)/refuse-upload?status=\(status)&tag=\(tag)"))
        return try await transport.send(HTTPRequest(method: .put, url: url, body: body)) { _ in }
    }

    @Test(
        "with Expect: 100-continue, a 413 before the body stops a 1 GiB upload before any of it is sent",
        arguments: [413, 401])
    func expectContinueSpendsNoBody(status: Int) async throws {
        var configuration = CurlConfiguration()
        configuration.expectContinue = CurlConfiguration.ExpectContinue(threshold: 1 << 20, timeout: .seconds(5))
        let transport = try CurlClient(configuration: configuration)
        let tag = "expect-\(status)-\(UUID().uuidString)"
        let response = try await upload(Self.zeros(1 << 30), status: status, tag: tag, through: transport)
        #expect(response.status == status)
        let sent = try await bytesAfterRefusal(tag)
        print("expect-continue: \(sent) body bytes sent of 1 GiB before a \(status)")
        #expect(sent <= 256 * 1024, "\(sent) bytes of the body went out")
    }

    @Test(
        "without Expect, the refusal is still the call's response, and the client stops sending",
        arguments: [Transport.curl, .urlSession])
    func earlyRefusalStopsTheUpload(transport kind: Transport) async throws {
        let transport: any HTTPClient =
            switch kind {
            case .curl: try CurlClient()
            case .urlSession, .stub: URLSessionClient()
            }
        let size: Int64 = 256 << 20
        let tag = "no-expect-\(kind)-\(UUID().uuidString)"
        let response = try await upload(Self.zeros(size), status: 413, tag: tag, through: transport)
        #expect(response.status == 413)
        let sent = try await bytesAfterRefusal(tag)
        print("early refusal on \(kind): \(sent) body bytes of \(size) arrived after the 413")
        #expect(sent < size, "the upload stopped: \(sent) of \(size) bytes")
    }

    @Test("a body under the threshold goes at once; over it, to a server that never answers 100, after the wait")
    func thresholdAndTimeout() async throws {
        struct Echo: Decodable {
            let headers: [[String]]
            let bodyLength: Int
        }
        var configuration = CurlConfiguration()
        configuration.expectContinue = CurlConfiguration.ExpectContinue(
            threshold: 64 * 1024, timeout: .milliseconds(200))
        let transport = try CurlClient(configuration: configuration)
        for size in [1024, 128 * 1024] {
            let url = try #require(URL(string: "\(server.baseURL)/echo"))
            let response = try await transport.send(
                HTTPRequest(method: .put, url: url, body: .bytes(Data(count: size)))
            ) { _ in }
            let echo = try JSONDecoder().decode(Echo.self, from: response.body.bytes)
            let expectation = echo.headers.first { $0.first?.lowercased() == "expect" }?.last
            #expect(expectation == (size >= 64 * 1024 ? "100-continue" : nil), "\(size)")
            #expect(echo.bodyLength == size, "the whole body arrived, the conformance server never sending 100")
        }
    }
}
