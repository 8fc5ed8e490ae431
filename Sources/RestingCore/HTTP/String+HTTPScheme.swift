extension String {
    /// 7 for `http://…`, 8 for `https://…` (the scheme in any case), `nil` for anything else: what the converter and
    /// the transports check on every request, byte by byte — `URL.scheme` and `lowercased()` each cost an
    /// allocation there.
    ///
    /// ```swift
    /// "HTTPS://api.example.com".httpSchemeLength  // 8
    /// ```
    package var httpSchemeLength: Int? {
        // Over the contiguous bytes (free for a native string): the generic UTF-8 view's iterator cost more than
        // the whole check.
        var string = self
        return string.withUTF8 { bytes in
            // ASCII letters differ from their capitals only in bit 5, which every lowercase letter has: `|`
            // cannot make a match.
            guard bytes.count >= 7, bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"),
                bytes[2] | 0x20 == UInt8(ascii: "t"), bytes[3] | 0x20 == UInt8(ascii: "p")
            else { return nil }
            let secure = bytes[4] | 0x20 == UInt8(ascii: "s")
            let length = secure ? 8 : 7
            guard bytes.count >= length, bytes[length - 3] == UInt8(ascii: ":"), bytes[length - 2] == UInt8(ascii: "/"),
                bytes[length - 1] == UInt8(ascii: "/")
            else { return nil }
            return length
        }
    }
}
