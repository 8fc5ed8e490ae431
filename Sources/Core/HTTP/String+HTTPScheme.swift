extension String {
    /// 7 for `http://…`, 8 for `https://…` (the scheme in any case), `nil` for anything else: what the converter and
    /// the transports check on every request, byte by byte — `URL.scheme` and `lowercased()` each cost an
    /// allocation there.
    ///
    /// ```swift
    /// "HTTPS://api.example.com".httpSchemeLength  // 8
    /// ```
    package var httpSchemeLength: Int? {
        var bytes = utf8.makeIterator()
        for letter in "http".utf8 {
            // ASCII letters differ from their capitals only in bit 5; `letter` is one, so `|` cannot make a match.
            guard let byte = bytes.next(), byte | 0x20 == letter else { return nil }
        }
        var next = bytes.next()
        let secure = next.map { $0 | 0x20 == UInt8(ascii: "s") } ?? false
        if secure { next = bytes.next() }
        guard next == UInt8(ascii: ":"), bytes.next() == UInt8(ascii: "/"), bytes.next() == UInt8(ascii: "/") else {
            return nil
        }
        return secure ? 8 : 7
    }
}
