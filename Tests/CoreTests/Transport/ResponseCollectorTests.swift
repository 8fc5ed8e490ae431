import Foundation
import Testing

@testable import RestingCore

/// What both transports do with a body they read whole, without sockets.
@Suite("ResponseCollector")
struct ResponseCollectorTests {
    let url = URL(string: "https://api.example.com/report")!

    func collector(
        _ method: RequestMethod = .get, limit: Int64 = 8, rate: MinimumTransferRate? = nil,
        streaming: ResponseStreaming? = nil, download: DownloadTarget? = nil
    ) -> ResponseCollector {
        ResponseCollector(
            request: HTTPRequest(method: method, url: url, downloadTarget: download, responseStreaming: streaming),
            maximumResponseSize: limit, minimumRate: rate)
    }

    /// The error `operation` fails with, `nil` when it succeeds.
    func failure(_ operation: () throws(RestingError) -> Void) -> RestingError? {
        do {
            try operation()
            return nil
        } catch {
            return error
        }
    }

    @Test("a body within the limit is kept whole; one chunk past it fails as responseTooLarge")
    func limit() throws {
        var collector = collector()
        try collector.begin(status: 200, headers: [:], announcedLength: nil)
        try collector.append(Data("12345".utf8))
        try collector.append(Data("678".utf8))
        #expect(collector.bytesReceived == 8)
        #expect(failure { () throws(RestingError) in try collector.append(Data("9".utf8)) } != nil)
        let finished = try collector.finish(status: 200, headers: [:])
        #expect(finished == Data("12345678".utf8))
    }

    @Test("a body announced past the limit fails at its head, but not a HEAD's, a stream's or a download's")
    func announcedLength() throws {
        var plain = collector()
        #expect(throws: RestingError.self) {
            try plain.begin(status: 200, headers: ["Content-Length": "9"], announcedLength: 9)
        }
        var head = collector(.head)
        try head.begin(status: 200, headers: ["Content-Length": "1000"], announcedLength: 1000)
        var streamed = collector(streaming: ResponseStreaming())
        try streamed.begin(status: 200, headers: ["Content-Length": "1000"], announcedLength: 1000)
        #expect(streamed.minimumRate == nil && streamed.streaming != nil)
    }

    @Test("begin runs once: a second head (trailers' blank line) changes nothing")
    func beginOnce() throws {
        var collector = collector()
        try collector.begin(status: 200, headers: ["Content-Length": "4"], announcedLength: 4)
        #expect(collector.hasBegun)
        try collector.begin(status: 200, headers: ["Content-Length": "9"], announcedLength: 9)
        try collector.append(Data("body".utf8))
        let finished = try collector.finish(status: 200, headers: [:])
        #expect(finished == Data("body".utf8))
    }

    @Test("a download's 2xx body goes to its file, not memory, whatever the memory limit; an error's stays in memory")
    func download() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.bin")
        var collector = collector(download: DownloadTarget(file: file))
        #expect(collector.streaming == nil, "a download is never streamed to a reader")
        try collector.begin(status: 200, headers: ["Content-Length": "12"], announcedLength: 12)
        try collector.append(Data("twelve bytes".utf8))
        let finished = try collector.finish(status: 200, headers: [:])
        #expect(finished.isEmpty)
        #expect(try Data(contentsOf: file) == Data("twelve bytes".utf8))

        var refused = self.collector(download: DownloadTarget(file: directory.appendingPathComponent("other")))
        try refused.begin(status: 404, headers: [:], announcedLength: nil)
        try refused.append(Data("missing".utf8))
        let refusedBody = try refused.finish(status: 404, headers: [:])
        #expect(refusedBody == Data("missing".utf8))
    }

    @Test("the minimum rate fails a body slower than it once a whole window has passed, never a streamed one")
    func minimumRate() throws {
        let rate = MinimumTransferRate(bytes: 100, window: .seconds(1))
        let start = MonotonicInstant(nanoseconds: 0)
        var slow = collector(rate: rate)
        try slow.checkRate(received: 1, at: start, domain: "test", code: 1)
        try slow.checkRate(received: 50, at: start + .milliseconds(999), domain: "test", code: 1)
        let error = failure { () throws(RestingError) in
            try slow.checkRate(received: 60, at: start + .seconds(1), domain: "test", code: 1)
        }
        guard case .transportFailed(let failure) = error, failure.kind == .timedOut else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        var streamed = collector(rate: rate, streaming: ResponseStreaming())
        try streamed.checkRate(received: 1, at: start, domain: "test", code: 1)
        try streamed.checkRate(received: 2, at: start + .seconds(10), domain: "test", code: 1)
    }

    @Test("progress is due at most once per interval")
    func progressThrottle() {
        var collector = collector()
        let start = MonotonicInstant(nanoseconds: 1_000)
        let due = [
            collector.isProgressDue(at: start), collector.isProgressDue(at: start + .milliseconds(49)),
            collector.isProgressDue(at: start + ResponseCollector.progressInterval),
        ]
        #expect(due == [true, false, true])
    }
}
