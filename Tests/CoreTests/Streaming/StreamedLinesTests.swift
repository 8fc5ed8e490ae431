import Foundation
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// `lines` and NDJSON over a streamed body, fed as chunks.
@Suite("Streamed lines and NDJSON")
struct StreamedLinesTests {
    func lines(_ chunks: [String], maximumLineLength: Int = 1024) async throws -> [String] {
        try await lines(chunks.map { Data($0.utf8) }, maximumLineLength: maximumLineLength)
    }

    func lines(_ chunks: [Data], maximumLineLength: Int = 1024) async throws -> [String] {
        var result: [String] = []
        for try await line in ResponseLines(ResponseBodyStream(chunks: chunks), maximumLineLength: maximumLineLength) {
            result.append(line)
        }
        return result
    }

    @Test("LF, CRLF and a lone CR end lines; a last line without a terminator still counts")
    func terminators() async throws {
        #expect(try await lines(["a\nb\r\nc\rd"]) == ["a", "b", "c", "d"])
        #expect(try await lines(["\n\n"]) == ["", ""])
        #expect(try await lines([Data]()) == [])
    }

    @Test("a line and a CRLF split across chunks are read once")
    func splitAcrossChunks() async throws {
        #expect(try await lines(["hel", "lo\r", "\nwor", "ld\r", "", "\n"]) == ["hello", "world"])
        #expect(try await lines(["a\r", "b"]) == ["a", "b"], "a CR at a chunk's end followed by a letter")
    }

    @Test("every split of a sample gives the same lines")
    func everySplit() async throws {
        let bytes = Array("one\r\ntwo\rthree\n\nfour é\r\n".utf8)
        let whole = try await lines([Data(bytes)])
        #expect(whole == ["one", "two", "three", "", "four é"])
        for split in 0...bytes.count {
            #expect(try await lines([Data(bytes[..<split]), Data(bytes[split...])]) == whole, "split at \(split)")
        }
    }

    @Test("a line longer than the limit fails clearly, even when no terminator ever comes")
    func maximumLineLength() async throws {
        await #expect(throws: StreamElementTooLarge(limit: 10)) {
            _ = try await lines(["0123456789ab\n"], maximumLineLength: 10)
        }
        do {
            _ = try await lines(Array(repeating: "xxxx", count: 10), maximumLineLength: 10)
            Issue.record("expected a failure")
        } catch let error as StreamElementTooLarge {
            #expect(error.limit == 10)
        }
        #expect(try await lines(["0123456789\n"], maximumLineLength: 10) == ["0123456789"], "exactly the limit is fine")
    }

    @Test("NDJSON: one value per line, blank lines skipped, a bad line fails with that line")
    func jsonLines() async throws {
        struct Change: Decodable, Equatable { let id: Int }
        let body = ResponseBodyStream(chunks: [Data("{\"id\":1}\n\n{\"i".utf8), Data("d\":2}\r\n{\"id\":3}".utf8)])
        var changes: [Change] = []
        for try await change in body.jsonLines(of: Change.self) { changes.append(change) }
        #expect(changes == [Change(id: 1), Change(id: 2), Change(id: 3)])

        do {
            for try await _ in ResponseBodyStream(Data("{\"id\":1}\nnot json\n".utf8)).jsonLines(of: Change.self) {}
            Issue.record("expected a decoding failure")
        } catch RestingError.decodingFailed(_, _, let line) {
            #expect(line == Data("not json".utf8))
        }
    }
}
