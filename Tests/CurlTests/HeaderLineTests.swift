import Testing

@testable import RestingCurl

/// The byte-level checks the header callback makes on every line, without a server.
@Suite("Curl header lines")
struct HeaderLineTests {
    private func check<Result>(_ text: String, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Result) -> Result {
        Array(text.utf8).withUnsafeBufferPointer { body($0[...]) }
    }

    @Test(
        "Content-Length is recognised in any case, and nothing else is",
        arguments: [
            ("Content-Length", true), ("content-length", true), ("CONTENT-LENGTH", true), ("cOnTeNt-LeNgTh", true),
            ("Content_Length", false), ("Content\rLength", false), ("Content-Lengths", false), ("Content-Type", false),
            ("", false), ("Content-Lengt", false),
        ])
    func contentLength(name: String, matches: Bool) {
        #expect(check(name, HeaderLine.isContentLength) == matches)
    }

    @Test("trimming drops spaces, tabs, CR and LF at both ends only")
    func trimming() {
        #expect(
            check(" \t value with  spaces \r\n") { String(decoding: HeaderLine.trimmed($0), as: UTF8.self) }
                == "value with  spaces")
        #expect(check(" \r\n") { HeaderLine.trimmed($0).isEmpty })
        #expect(check("") { HeaderLine.trimmed($0).isEmpty })
        #expect(check("x") { String(decoding: HeaderLine.trimmed($0), as: UTF8.self) } == "x")
    }

    @Test("a status line starts with HTTP/, in capitals")
    func statusLine() {
        let isStatus = { (text: String) in Array(text.utf8).withUnsafeBufferPointer(HeaderLine.isStatusLine) }
        #expect(isStatus("HTTP/1.1 200 OK\r\n"))
        #expect(isStatus("HTTP/2 204\r\n"))
        #expect(!isStatus("http/1.1 200 OK\r\n"))
        #expect(!isStatus("HTTP"))
        #expect(!isStatus("X-HTTP/1.1: no\r\n"))
    }
}
