import Foundation
import RestingTransportKit
import Testing

// What RestingTransportKit gives a transport author, used as one would use it (no @testable import; only the tests'
// counters use the project's lock): a feed for a streamed body, a writer for a download, and a transport built on
// both, through a RestingClient. The Transports guide shows the transport.

// snippet: transport-kit
/// Answers from canned bodies, `chunkSize` bytes at a time, as a transport on a wire would: a streamed call gets the
/// chunks through a feed as its reader takes them, a download has them written to its file.
struct ChunkingHTTPClient: HTTPClient {
    let bodies: [String: Data]  // by URL path
    var chunkSize = 4

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let (status, body) = bodies[request.url.path].map { (200, $0) } ?? (404, Data("no such file".utf8))
        let headers: HTTPHeaderFields = ["Content-Length": "\(body.count)"]
        let chunks = stride(from: 0, to: body.count, by: chunkSize).map {
            body.subdata(in: $0..<min($0 + chunkSize, body.count))
        }
        if let target = request.downloadTarget {
            let writer = DownloadFileWriter(target)
            // Only a 2xx goes to the file; an error keeps its page in memory.
            if try writer.begin(status: status, headers: headers) == .file {
                for chunk in chunks { try writer.write(chunk) }
                try writer.finish(status: status, headers: headers)
                return HTTPDataResponse(status: status, headers: headers, url: request.url)
            }
        } else if let streaming = request.responseStreaming {
            let (resumptions, resume) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let (stream, feed) = ResponseBodyFeed.makeStream(
                bufferSize: streaming.bufferSize, onResume: { resume.yield() }, onCancel: { resume.finish() })
            Task {
                var resumed = resumptions.makeAsyncIterator()
                for chunk in chunks {
                    var result = feed.yield(chunk)
                    while result == .pause {  // not taken: offer it again once the reader made room
                        guard await resumed.next() != nil else { return }  // the reader left
                        result = feed.yield(chunk)
                    }
                    if result == .discarded { return }
                }
                feed.finish()
            }
            return HTTPDataResponse(status: status, headers: headers, body: ResponseBody(stream), url: request.url)
        }
        return HTTPDataResponse(status: status, headers: headers, body: ResponseBody(body), url: request.url)
    }
}
// end snippet

@Suite("RestingTransportKit: what a transport author builds on")
struct TransportKitTests {
    let report = Data((0..<64).map { UInt8($0) })

    @Test("a feed pauses its producer when the unread bytes reach the buffer size, and resumes it at half")
    func feedPausesAndResumes() async throws {
        let resumes = Locked(0)
        let (stream, feed) = ResponseBodyFeed.makeStream(
            bufferSize: 8, onResume: { resumes.withLock { $0 += 1 } }, onCancel: {})
        #expect(feed.yield(Data([1, 2, 3, 4])) == .accepted)
        #expect(feed.yield(Data([5, 6, 7, 8])) == .accepted)
        #expect(feed.yield(Data([9])) == .pause)
        var reader = stream.makeAsyncIterator()
        #expect(try await reader.next() == Data([1, 2, 3, 4]))
        #expect(resumes.withLock { $0 } == 1)
        #expect(feed.yield(Data([9])) == .accepted)
        feed.finish()
        #expect(try await reader.next() == Data([5, 6, 7, 8]))
        #expect(try await reader.next() == Data([9]))
        #expect(try await reader.next() == nil)
    }

    @Test("a feed's last chunk is taken even when the buffer is full, then the error that cut the body is thrown")
    func feedFinishesAfterItsLastChunk() async throws {
        let (stream, feed) = ResponseBodyFeed.makeStream(bufferSize: 4, onResume: {}, onCancel: {})
        #expect(feed.yield(Data([1, 2, 3, 4])) == .accepted)
        let reset = RestingError.transportFailed(
            TransportError(kind: .connectionReset, code: 56, domain: "example", message: "reset by peer"))
        feed.finish(afterYielding: Data([5]), throwing: reset)
        var reader = stream.makeAsyncIterator()
        #expect(try await reader.next() == Data([1, 2, 3, 4]))
        #expect(try await reader.next() == Data([5]))
        await #expect(throws: reset) { try await reader.next() }
    }

    @Test("a reader that leaves calls onCancel once, and the producer's next chunk is discarded")
    func readerLeavingStopsTheProducer() {
        let cancels = Locked(0)
        let (stream, feed) = ResponseBodyFeed.makeStream(
            bufferSize: 8, onResume: {}, onCancel: { cancels.withLock { $0 += 1 } })
        stream.cancel()
        stream.cancel()
        #expect(cancels.withLock { $0 } == 1)
        #expect(feed.yield(Data([1])) == .discarded)
    }

    @Test("a writer sends a 2xx body to the file and any other body to memory, leaving no file")
    func writerChoosesTheFileForSuccessOnly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.bin.part")

        let refused = DownloadFileWriter(DownloadTarget(file: file))
        #expect(try refused.begin(status: 404, headers: [:]) == .memory)
        #expect(refused.destination == .memory)
        #expect(!FileManager.default.fileExists(atPath: file.path))

        let writer = DownloadFileWriter(DownloadTarget(file: file))
        #expect(writer.destination == nil)
        #expect(try writer.begin(status: 200, headers: [:]) == .file)
        try writer.write(report.prefix(10))
        try report.dropFirst(10).withUnsafeBytes { try writer.write($0) }
        try writer.finish(status: 200, headers: [:])
        #expect(writer.bytesWritten == 64)
        #expect(try Data(contentsOf: file) == report)
    }

    @Test("a resumed download refuses what does not continue its file, and a file past its limit fails")
    func writerRefusesWhatDoesNotFit() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.bin.part")
        try report.prefix(16).write(to: file)
        let resumed = DownloadTarget(file: file, offset: 16, validator: "\"v1\"")

        #expect(throws: RestingError.resumeRefused(.rangeIgnored(status: 200))) {
            try DownloadFileWriter(resumed).begin(status: 200, headers: ["ETag": "\"v1\""])
        }
        #expect(throws: RestingError.resumeRefused(.fileChanged)) {
            try DownloadFileWriter(resumed).begin(status: 206, headers: ["ETag": "\"v2\""])
        }
        #expect(throws: RestingError.resumeRefused(.rangeMismatch(expectedStart: 16, contentRange: "bytes 0-63/64"))) {
            try DownloadFileWriter(resumed).begin(
                status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 0-63/64"])
        }
        let continued = DownloadFileWriter(resumed)
        #expect(
            try continued.begin(status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes 16-63/64"]) == .file)
        try continued.write(report.dropFirst(16))
        try continued.finish(status: 206, headers: [:])
        #expect(try Data(contentsOf: file) == report)

        let bounded = DownloadFileWriter(DownloadTarget(file: file, maximumSize: 8))
        try bounded.begin(status: 200, headers: [:])
        #expect(throws: RestingError.responseTooLarge(limit: 8)) { try bounded.write(report.prefix(9)) }
        bounded.close()
    }

    @Test("a user's transport on the kit streams a body through a buffer smaller than it, whole and in order")
    func transportStreamsThroughTheFeed() async throws {
        let transport = ChunkingHTTPClient(bodies: ["/report": report])
        let response = try await transport.send(
            HTTPRequest(
                method: .get, url: URL(string: "https://files.example/report")!,
                responseStreaming: ResponseStreaming(bufferSize: 8)),
            progress: { _ in })
        #expect(try await response.body.collect(upTo: 1024) == report)

        let client = RestingClient(baseUrl: "https://files.example", httpClient: transport)
        let streamed = Endpoint<Nothing, ResponseBodyStream>(.get, "/report")
        var received = Data()
        for try await chunk in try await client.perform(RestingRequest(endpoint: streamed)).value.body {
            #expect(chunk.count <= 4)
            received.append(chunk)
        }
        #expect(received == report)
    }

    @Test("a user's transport on the kit downloads to the file, and a 404 fails with its page, leaving no file")
    func transportDownloadsThroughTheWriter() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = RestingClient(
            baseUrl: "https://files.example", httpClient: ChunkingHTTPClient(bodies: ["/report": report]))
        let file = Endpoint<Nothing, Nothing>(.get, "/{{name}}")

        let saved = directory.appendingPathComponent("report.bin")
        let downloaded = try await client.download(
            RestingRequest(endpoint: file, pathVariables: ["name": "report"]), to: saved
        ).value
        #expect(downloaded.size == 64)
        #expect(try Data(contentsOf: saved) == report)

        let missing = directory.appendingPathComponent("missing.bin")
        do {
            _ = try await client.download(
                RestingRequest(endpoint: file, pathVariables: ["name": "missing"]), to: missing
            )
            .value
            Issue.record("a 404 download succeeded")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 404)
            #expect(error.body == Data("no such file".utf8))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.bin"])
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transport-kit-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
