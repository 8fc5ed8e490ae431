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

    /// Whether `line` starts a response (`HTTP/…`), byte by byte: this runs for every header line.
    static func isStatusLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
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
