enum HeaderLine {
    /// `bytes` without leading and trailing spaces, tabs, CR and LF.
    static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    /// Whether `line` starts a response as libcurl reads one: `HTTP/` in any case (a field name cannot hold a `/`),
    /// byte by byte — this runs for every header line.
    static func isStatusLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.count >= 5 && line[0] | 0x20 == UInt8(ascii: "h") && line[1] | 0x20 == UInt8(ascii: "t")
            && line[2] | 0x20 == UInt8(ascii: "t") && line[3] | 0x20 == UInt8(ascii: "p")
            && line[4] == UInt8(ascii: "/")
    }

    /// Why a status line is not one RFC 9112 §4 allows — `nil` when it is: `HTTP` in capitals (the name is
    /// case-sensitive, §2.3), `/`, a version (`1.1`; libcurl writes HTTP/2's and HTTP/3's as `2` and `3`), a space,
    /// three digits, and a space before the reason phrase, which may be empty — or nothing after the code (servers
    /// send `HTTP/1.1 200`). libcurl itself is more lenient: it takes `Http/1.1` and the first three digits of a
    /// longer code.
    static func statusLineFault(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        var end = line.count
        if end > 0, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let name: StaticString = "HTTP/"
        let isCapitals = name.withUTF8Buffer { name in line.count >= 5 && zip(name, line).allSatisfy { $0 == $1 } }
        guard isCapitals else { return "the protocol name is not HTTP in capitals" }
        var index = 5
        func digit(at index: Int) -> Bool {
            index < end && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index])
        }
        guard digit(at: index) else { return "the status line has no HTTP version" }
        index += 1
        if index < end, line[index] == UInt8(ascii: ".") {
            guard digit(at: index + 1) else { return "the status line has no HTTP version" }
            index += 2
        }
        guard index < end, line[index] == UInt8(ascii: " ") else { return "no space after the HTTP version" }
        index += 1
        guard digit(at: index), digit(at: index + 1), digit(at: index + 2) else {
            return "the status code is not three digits"
        }
        index += 3
        // `HTTP/1.1 200` with no space after the code: servers send it, libcurl and the proposed standard HTTP
        // client's conformance suite take it.
        guard index == end || line[index] == UInt8(ascii: " ") else { return "the status code is not three digits" }
        return nil
    }

    /// Whether `name` is `Content-Length` in any case, compared on the bytes: this runs for every header line.
    static func isContentLength(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let lowercase: StaticString = "content-length"
        return lowercase.withUTF8Buffer { lowercase in
            guard name.count == lowercase.count else { return false }
            var index = name.startIndex
            for expected in lowercase {
                let byte = name[index]
                // Setting bit 5 lowercases an ASCII letter (and changes no other byte into one); the hyphen must
                // match as it is.
                guard expected == UInt8(ascii: "-") ? byte == expected : byte | 0x20 == expected else { return false }
                index += 1
            }
            return true
        }
    }
}
