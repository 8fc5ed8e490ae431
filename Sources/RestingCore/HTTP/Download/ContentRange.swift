/// Reading the `Content-Range` header (RFC 9110 §14.4) of a resumed download's answer.
package enum ContentRange {
    /// The first byte position of `bytes 100-199/1000`, as a 206 answers, or `nil`.
    package static func firstByte(of value: String) -> Int64? {
        let trimmed = value.trimmingWhitespace
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let range = trimmed.dropFirst(6).trimmingWhitespace
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return position(range[..<dash])
    }

    /// The complete length of `bytes */1000`, as a 416 answers, or `nil`.
    package static func completeLength(of value: String?) -> Int64? {
        guard let value, let slash = value.lastIndex(of: "/") else { return nil }
        return position(value[value.index(after: slash)...].trimmingWhitespace)
    }

    /// A byte position or length: decimal digits only (`Int64` would also take a sign).
    private static func position(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
