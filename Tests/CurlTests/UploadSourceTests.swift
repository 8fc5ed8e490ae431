import Foundation
import RestingCore
import Testing

@testable import RestingCurl

/// A transfer's request body source, without a socket: which reader it keeps, what it counts, how it pauses.
@Suite("Upload sources")
struct UploadSourceTests {
    @Test("bytes and files are read by a blocking reader; an async sequence by one polled without blocking")
    func readerKinds() throws {
        guard case .blocking(_, bytesRead: 0) = UploadSource(try RequestBody.bytes(Data("abc".utf8)).makeReader())
        else {
            Issue.record("bytes in memory are read by a blocking reader")
            return
        }
        let ticks = AsyncStream<Data> { $0.finish() }
        let sequence = UploadSource(try RequestBody.sequence(ticks, contentLength: 0).makeReader())
        guard case .sequence(_, bytesRead: 0, isPaused: false) = sequence else {
            Issue.record("an async sequence is polled")
            return
        }
    }

    @Test("only a paused sequence resumes, once; closing leaves no source and nothing read")
    func pauseAndClose() throws {
        let ticks = AsyncStream<Data> { $0.finish() }
        let reader = try #require(try RequestBody.sequence(ticks, contentLength: 0).makeReader() as? SequenceBodyReader)
        var source = UploadSource.sequence(reader, bytesRead: 7, isPaused: true)
        #expect(source.isPaused && source.bytesRead == 7)
        let (first, second) = (source.resume(), source.resume())
        #expect(first && !second)
        source.close()
        #expect(source.bytesRead == 0 && !source.isPaused)
        guard case .none = source else {
            Issue.record("a closed source holds no reader")
            return
        }
        var buffer = [UInt8](repeating: 0, count: 8)
        let afterClose = buffer.withUnsafeMutableBytes { reader.poll(into: $0, orWhenReadable: {}) }
        guard case .failed(.cancelled) = afterClose else {
            Issue.record("the closed reader is closed")
            return
        }
    }
}
