import RestingCore
import Testing

@testable import RestingCurl

/// Where a response body ends, read from its bytes on the wire, without a socket: however the bytes are split.
@Suite("Response framing on the wire")
struct ResponseFramingTests {
    private static func framing(_ headers: [(String, String)], status: Int = 200, method: RequestMethod = .post)
        -> ResponseFraming
    {
        ResponseFraming(status: status, method: method, headers: HTTPHeaderFields(headers))
    }

    /// Whether `body` fed in pieces of `size` bytes completes `framing`, and after exactly which byte.
    private static func completion(of framing: ResponseFraming, _ body: String, pieces size: Int) -> Int? {
        var framing = framing
        let bytes = Array(body.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            let done = bytes[offset..<end].withUnsafeBytes { framing.consume($0) }
            if done { return end }
            offset = end
        }
        return nil
    }

    @Test("a chunked body, with extensions and trailers, ends at its last line break, split however it arrives")
    func chunked() {
        let body = "5;name=value\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n"
        for size in 1...body.utf8.count {
            #expect(
                Self.completion(of: Self.framing([("Transfer-Encoding", "chunked")]), body, pieces: size)
                    == body.utf8.count, "pieces of \(size)")
        }
        let partial = "5\r\nhello\r\n0\r\n"
        #expect(Self.completion(of: Self.framing([("Transfer-Encoding", "chunked")]), partial, pieces: 3) == nil)
    }

    @Test("a Content-Length body ends at its last byte; an empty one, a HEAD's, a 204's and a 304's at the head")
    func lengths() {
        #expect(Self.completion(of: Self.framing([("Content-Length", "10")]), "0123456789", pieces: 4) == 10)
        #expect(Self.framing([("Content-Length", "0")]).isComplete)
        #expect(Self.framing([("Content-Length", "10")], method: .head).isComplete)
        #expect(Self.framing([], status: 204).isComplete)
        #expect(Self.framing([("Content-Length", "10")], status: 304).isComplete)
    }

    @Test("a body that ends with its connection, or a coding beyond chunked, or a bad size, is left to libcurl")
    func untracked() {
        #expect(Self.framing([]).state == .untracked)
        #expect(Self.framing([("Transfer-Encoding", "gzip")]).state == .untracked)
        var badSize = Self.framing([("Transfer-Encoding", "chunked")])
        let done = Array("zz\r\n".utf8).withUnsafeBytes { badSize.consume($0) }
        #expect(!done && badSize.state == .untracked)
        var huge = Self.framing([("Transfer-Encoding", "chunked")])
        _ = Array("1234567890abcdef0\r\n".utf8).withUnsafeBytes { huge.consume($0) }
        #expect(huge.state == .untracked, "a size past 15 hex digits")
    }
}
