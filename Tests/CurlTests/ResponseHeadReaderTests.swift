import RestingCore
import Testing

@testable import RestingCurl

/// How a response's head is read from libcurl's lines, without a socket: fields, the announced length, a head that
/// starts over after an interim response, trailers kept out, and the lines that fail a transfer.
@Suite("Response heads, line by line")
struct ResponseHeadReaderTests {
    /// `lines` read in order; the step each took.
    private static func read(_ lines: [String], into head: inout ResponseHeadReader) -> [ResponseHeadReader.Step] {
        lines.map { line in
            var bytes = Array(line.utf8)
            return bytes.withUnsafeMutableBufferPointer { head.read(UnsafeBufferPointer($0)) }
        }
    }

    @Test("a head's fields and length are read; the blank line ends it")
    func wholeHead() {
        var head = ResponseHeadReader()
        let steps = Self.read(
            ["HTTP/1.1 200 OK\r\n", "Content-Type: text/plain\r\n", "Content-Length:  42 \r\n", "\r\n"], into: &head)
        #expect(steps == [.taken, .taken, .taken, .ended])
        #expect(head.fields["content-type"] == "text/plain")
        #expect(head.announcedLength == 42)
        #expect(head.phase == .trailers)
    }

    @Test("an interim response's head is forgotten when the final one's status line arrives")
    func interimResponse() {
        var head = ResponseHeadReader()
        _ = Self.read(
            [
                "HTTP/1.1 100 Continue\r\n", "X-Interim: yes\r\n", "\r\n", "HTTP/1.1 201 Created\r\n",
                "Location: /a\r\n",
            ],
            into: &head)
        #expect(head.fields["X-Interim"] == nil)
        #expect(head.fields["Location"] == "/a")
        #expect(head.phase == .head)
    }

    @Test("lines after the head are trailers: kept apart, never among its fields")
    func trailersStayOut() {
        var head = ResponseHeadReader()
        let steps = Self.read(
            ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n", "Location: https://evil.example/\r\n"],
            into: &head)
        #expect(steps.last == .taken)
        #expect(head.fields["Location"] == nil)
        #expect(head.trailers["Location"] == "https://evil.example/")
    }

    @Test("two different lengths, a status line RFC 9112 refuses, or a head past the limit fail the transfer")
    func malformedHeads() {
        var conflicting = ResponseHeadReader()
        let steps = Self.read(
            ["HTTP/1.1 200 OK\r\n", "Content-Length: 1\r\n", "Content-Length: 2\r\n"], into: &conflicting)
        #expect(steps.last == .malformed("conflicting Content-Length headers"))

        var badStatus = ResponseHeadReader()
        guard case .malformed? = Self.read(["Http/1.1 200 OK\r\n"], into: &badStatus).first else {
            Issue.record("a status line in lower case is refused")
            return
        }

        var huge = ResponseHeadReader()
        let field = "X-Filler: " + String(repeating: "a", count: 8 * 1024) + "\r\n"
        let floods = Self.read(["HTTP/1.1 200 OK\r\n"] + Array(repeating: field, count: 40), into: &huge)
        #expect(floods.contains(.malformed("response headers larger than \(ResponseHeadReader.maximumBytes) bytes")))
        #expect(huge.bytes > ResponseHeadReader.maximumBytes)
    }
}
