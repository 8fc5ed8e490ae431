import Foundation
import RestingServerHarness
import Testing

@testable import RestingCore
@testable import RestingCurl

/// What a client's own use can do to HTTP/3's additions, against hypercorn on 127.0.0.1: a reader that falls behind
/// steadily, a client released after its shutdown beside a newer one sharing its Alt-Svc file, a trailers upload as an
/// origin's first call.
@Suite("HTTP/3, hostile: slow readers, a shared Alt-Svc file, trailers first", .serialized)
struct HTTP3HostileClientTests {
    /// A client saves its Alt-Svc file when it shuts down, or else when it is released: never both, which would
    /// write over what a newer client (or `curl --alt-svc`) saved in between.
    @Test(
        "a client already shut down does not write its Alt-Svc file again when it is released (a newer client's file is kept)"
    )
    func releasedAfterShutdownKeepsTheNewerFile() async throws {
        let base = try await Peers.quic.value.baseURL
        let file = Peers.folder.appendingPathComponent("alt-svc-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        var first: CurlClient? = try Peers.transport(.http2OverTLS, discovering: true, keepingIn: file)
        weak let released = first
        _ = try await first?.send(HTTPRequest(method: .get, url: try #require(URL(string: base + "/get?tag=shared"))))
        await first?.shutdown(gracePeriod: nil)
        #expect(FileManager.default.fileExists(atPath: file))
        // What a newer client wrote since: the same origin, and one more it heard.
        let newer =
            (try String(contentsOfFile: file, encoding: .utf8))
            + "h2 newer.example 443 h3 newer.example 443 \"\(AlternativeServicesFile.format(Date() + 3600))\" 0 0\n"
        try newer.write(toFile: file, atomically: true, encoding: .utf8)
        first = nil
        // Bounded polling until the client is freed (its deinit has run).
        for _ in 0..<1_000 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "the client was never freed")
        #expect(
            (try String(contentsOfFile: file, encoding: .utf8)) == newer,
            "the released client wrote its own, older, cache over the newer file")
    }

    /// libcurl cannot pause a QUIC stream: what it holds for a reader is what it received minus what the reader took.
    /// A reader taking 32 KiB every 20 ms (1.6 MB/s) from a server sending faster falls behind by megabytes, though
    /// each chunk it takes unpauses the transfer; past `maximumResponseSize` the call fails.
    @Test(
        "a streamed body over HTTP/3 read slower than it arrives: once libcurl holds more than maximumResponseSize for the reader, the call fails responseTooLarge"
    )
    func readerFallingBehindSteadilyIsBounded() async throws {
        let limit: Int64 = 2 << 20
        let size: Int64 = 24 << 20
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/bytes?n=\(size)")))
        request.responseStreaming = ResponseStreaming(bufferSize: 64 * 1024)
        let transport = try Peers.transport(.http3Only, holdingAtMost: limit)
        let sent = request
        let response = try await finishing(within: .seconds(60), "the head") {
            try await transport.send(sent, progress: { _ in })
        }
        #expect(response.metrics?.protocolVersion == "3")
        let stream = try #require(response.body.stream)
        let outcome: Result<Int64, any Error> = try await finishing(within: .seconds(120), "the body") {
            var consumed: Int64 = 0
            var tick: Int64 = 0
            do {
                for try await chunk in stream {
                    consumed += Int64(chunk.count)
                    tick += Int64(chunk.count)
                    if tick >= 32 * 1024 {
                        tick = 0
                        // The slow reader under test (1.6 MB/s), not a synchronisation.
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                return .success(consumed)
            } catch {
                return .failure(error)
            }
        }
        #expect(
            throws: RestingError.responseTooLarge(limit: limit),
            "a \(size)-byte body read at 1.6 MB/s with a \(limit)-byte limit ended \(outcome)"
        ) { _ = try outcome.get() }
        await transport.shutdown(gracePeriod: .seconds(1))
    }

    /// A body with trailers goes over HTTP/1.1 whatever the origin speaks: it must not teach the client that the
    /// origin does not multiplex (its later calls would each open a connection per driver), nor leave an HTTP/1.1
    /// connection for them to ride.
    @Test(
        "a trailers upload as an HTTP/2 origin's first call does not mark it HTTP/1.1: the calls after it go over HTTP/2 and share one connection"
    )
    func trailersUploadKeepsTheOriginMultiplexed() async throws {
        let base = try await Peers.quic.value.baseURL
        let tag = "affinity-\(UUID().uuidString)"
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http2OverTLS
        configuration.driverCount = 4
        configuration.tls.caFile = Peers.folder.appendingPathComponent("quic/cert.pem").path
        let transport = try CurlClient(configuration: configuration)
        let chunks = AsyncStream<Data> {
            $0.yield(Data("hello".utf8))
            $0.finish()
        }
        let upload = HTTPRequest(
            method: .post, url: try #require(URL(string: base + "/echo?tag=\(tag)-upload")),
            body: .sequence(chunks) { ["X-Checksum": "sha256=abc"] })
        let uploaded = try await finishing(within: .seconds(60), "the trailers upload") {
            try await transport.send(upload, progress: { _ in })
        }
        #expect(uploaded.headers["X-Version"] == "1.1")
        let url = try #require(URL(string: base + "/get?tag=\(tag)"))
        let versions = try await finishing(within: .seconds(60), "32 calls at once") {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<32 {
                    group.addTask {
                        try await transport.send(HTTPRequest(method: .get, url: url)).metrics?.protocolVersion
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
        }
        #expect(Set(versions) == ["2"], "plain calls after a trailers upload: \(versions)")
        let log = try await HTTP3Tests.log(tag).filter { $0.version == "2" }
        let connections = Set(log.map(\.client))
        #expect(connections.count == 1, "\(log.count) HTTP/2 calls rode on \(connections.count) connections")
        await transport.shutdown(gracePeriod: .seconds(1))
    }
}
