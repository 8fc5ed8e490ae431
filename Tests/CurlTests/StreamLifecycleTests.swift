import Foundation
import RestingCore
import RestingServerHarness
import Testing

@testable import RestingCurl

/// What a streamed transfer leaves behind, however its body ends: nothing.
@Suite("Curl streamed transfers", .serialized, .timeLimit(.minutes(5)))
struct StreamLifecycleTests {
    @Test(
        "read whole, dropped unread, abandoned midway, cancelled while waiting: no transfer record outlives its stream")
    func noTransferOutlivesItsStream() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let transport = try CurlClient()
        func streamed(_ path: String) async throws -> ResponseBodyStream {
            let request = HTTPRequest(
                method: .get, url: try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)")),
                responseStreaming: ResponseStreaming(bufferSize: 16 * 1024))
            return try #require(try await transport.send(request) { _ in }.body.stream)
        }
        for round in 0..<20 {
            _ = try await streamed("/bytes/100000").collect(upTo: 1 << 20)
            _ = try await streamed("/bytes/100000")
            for try await _ in try await streamed("/endless") { break }
            let waiting = try await streamed("/stall")
            let reader = Task { for try await _ in waiting {} }
            if round % 2 == 0 { reader.cancel() } else { waiting.cancel() }
            _ = await reader.result
        }
        // Each driver reads its mail in order: once every driver ended its pass, every cancellation has been handled.
        let census = await transport.settledCensus()
        #expect(census.live == 0, "every transfer record is freed once its stream ended or was dropped")
    }

    @Test(
        "a reader slower than the idle timeout, pause after pause, never times its stream out; a silent server still does"
    )
    func idleTimeoutCountsOnlyTheServersSilence() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        var configuration = CurlConfiguration()
        configuration.idleTimeout = .seconds(1)
        let transport = try CurlClient(configuration: configuration)
        let size = 8 * 1024 * 1024
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/pattern?size=\(size)"))
        let body = try #require(
            try await transport.send(
                HTTPRequest(method: .get, url: url, responseStreaming: ResponseStreaming(bufferSize: 64 * 1024))
            ) { _ in }.body.stream)
        var received = 0
        var pauses = 0
        for try await chunk in body {
            received += chunk.count
            if pauses < 3 {
                pauses += 1
                // A reader slower than the idle timeout, three times over: the behaviour under test, not a wait.
                try await Task.sleep(for: .milliseconds(1500))
            }
        }
        #expect(received == size, "the stream arrived whole after \(pauses) long pauses of its reader")

        let stall = try #require(URL(string: "http://127.0.0.1:\(server.port)/stall"))
        let silent = try #require(
            try await transport.send(
                HTTPRequest(method: .get, url: stall, responseStreaming: ResponseStreaming())
            ) { _ in }.body.stream)
        do {
            for try await _ in silent {}
            Issue.record("a server that stops sending must be cut after the idle timeout")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .timedOut)
        }
    }
}
