import RestingTestSupport
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

    @Test("a line is a status line as libcurl reads one: HTTP/ in any case, never a field")
    func statusLine() {
        let isStatus = { (text: String) in Array(text.utf8).withUnsafeBufferPointer(HeaderLine.isStatusLine) }
        #expect(isStatus("HTTP/1.1 200 OK\r\n"))
        #expect(isStatus("HTTP/2 204 \r\n"))
        #expect(isStatus("http/1.1 200 OK\r\n"))
        #expect(!isStatus("HTTP"))
        #expect(!isStatus("X-HTTP/1.1: no\r\n"))
    }

    @Test(
        "a status line RFC 9112 allows has no fault; every other names its own",
        arguments: [
            ("HTTP/1.1 200 OK\r\n", nil), ("HTTP/1.1 200 \r\n", nil), ("HTTP/1.0 404 Not Found\n", nil),
            ("HTTP/2 204 \r\n", nil), ("HTTP/3 200 \r\n", nil), ("HTTP/1.1 200 OK, with spaces\r\n", nil),
            ("HTTP/1.1 200\r\n", nil), ("HTTP/1.1 200", nil),
            ("Http/1.1 200 OK\r\n", "the protocol name is not HTTP in capitals"),
            ("http/1.1 200 OK\r\n", "the protocol name is not HTTP in capitals"),
            ("HTTP/1.1 20 OK\r\n", "the status code is not three digits"),
            ("HTTP/1.1 2000 OK\r\n", "the status code is not three digits"),
            ("HTTP/1.1 2x0 OK\r\n", "the status code is not three digits"),
            ("HTTP/ 200 OK\r\n", "the status line has no HTTP version"),
            ("HTTP/1. 200 OK\r\n", "the status line has no HTTP version"),
            ("HTTP/1.1200 OK\r\n", "no space after the HTTP version"),
            ("HTTP/1.1\r\n", "no space after the HTTP version"),
        ] as [(String, String?)])
    func statusLineFaults(line: String, fault: String?) {
        #expect(Array(line.utf8).withUnsafeBufferPointer(HeaderLine.statusLineFault) == fault)
    }

    @Test("on 20 000 random near-miss status lines, the byte-level check agrees with RFC 9112's grammar")
    func randomStatusLinesAgreeWithTheGrammar() {
        // Mutations of valid lines, and bytes a hostile server might send instead: digits, dots, spaces, case.
        let alphabet = Array("HTTPhttp/.0123456789 \r\nOKx".utf8) + [0x00, 0x09, 0x80, 0xFF]
        var generator = SeededGenerator(seed: 9112)
        for _ in 0..<20_000 {
            var bytes = Array(
                ["HTTP/1.1 200 OK\r\n", "HTTP/2 204 \r\n", "HTTP/1.0 404 Not Found\n"].randomElement(
                    using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                }
                if bytes.isEmpty { bytes = [0x48] }
            }
            let fault = bytes.withUnsafeBufferPointer(HeaderLine.statusLineFault)
            #expect(
                (fault == nil) == Self.isRFC9112StatusLine(bytes),
                "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }

    /// The grammar, the obvious way: `HTTP/` DIGIT [ "." DIGIT ] SP 3DIGIT [ SP reason ], then CRLF or LF (the
    /// reason's space may be missing with the reason: servers send `HTTP/1.1 200`).
    static func isRFC9112StatusLine(_ bytes: [UInt8]) -> Bool {
        var text = String(decoding: bytes, as: UTF8.self)
        // CR LF is one Character: `hasSuffix("\n")` alone misses it.
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        let scalars = Array(text.unicodeScalars)
        let isDigit = { (index: Int) in index < scalars.count && ("0"..."9").contains(scalars[index]) }
        guard text.hasPrefix("HTTP/"), isDigit(5) else { return false }
        var index = 6
        if index < scalars.count, scalars[index] == "." {
            guard isDigit(7) else { return false }
            index = 8
        }
        guard index < scalars.count, scalars[index] == " ", isDigit(index + 1), isDigit(index + 2), isDigit(index + 3)
        else { return false }
        return index + 4 == scalars.count || scalars[index + 4] == " "
    }

    @Test("on 20 000 random lines, the byte-level checks agree with the obvious String ones")
    func randomLinesAgreeWithReference() {
        // Bytes a server could send, weighted towards the ones these checks look at.
        let alphabet = Array("Content-Length: \t\r\ncONTENT-lENGTH_x:".utf8) + [0x00, 0x7F, 0x80, 0xFF]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                // Near-misses of the name: random case, and now and then one byte replaced.
                bytes = "content-length".utf8.map { Bool.random(using: &generator) ? $0 & ~0x20 : $0 }
                if Int.random(in: 0..<3, using: &generator) == 0,
                    let index = bytes.indices.randomElement(using: &generator)
                {
                    bytes[index] = alphabet.randomElement(using: &generator) ?? 0
                }
            } else {
                bytes = (0..<Int.random(in: 0...20, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator) ?? 0
                }
            }
            bytes.withUnsafeBufferPointer { line in
                let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
                let expectedStart = bytes.firstIndex { !isSpace($0) } ?? bytes.count
                let expectedEnd = (bytes.lastIndex { !isSpace($0) }).map { $0 + 1 } ?? expectedStart
                #expect(Array(HeaderLine.trimmed(line[...])) == Array(bytes[expectedStart..<expectedEnd]), "\(bytes)")
                let isContentLength =
                    bytes.count == 14 && bytes.allSatisfy { $0 < 0x80 }
                    && String(decoding: bytes, as: UTF8.self).lowercased() == "content-length"
                #expect(HeaderLine.isContentLength(line[...]) == isContentLength, "\(bytes)")
            }
        }
    }
}
