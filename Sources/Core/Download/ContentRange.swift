/// Reading the `Content-Range` header (RFC 9110 §14.4) of a resumed download's answer.
enum ContentRange {
    /// The first byte position of `bytes 100-199/1000`, as a 206 answers, or `nil`.
    static func firstByte(of value: String) -> Int64? {
        let trimmed = value.trimmingWhitespace
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let range = trimmed.dropFirst(6).trimmingWhitespace
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[..<dash])
    }

    /// The complete length of `bytes */1000`, as a 416 answers, or `nil`.
    static func completeLength(of value: String?) -> Int64? {
        guard let value, let slash = value.lastIndex(of: "/") else { return nil }
        return Int64(value[value.index(after: slash)...].trimmingWhitespace)
    }
}
