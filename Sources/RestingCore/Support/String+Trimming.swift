extension StringProtocol {
    /// Without leading and trailing spaces and tabs: HTTP's optional whitespace (RFC 9110 §5.6.3).
    package var trimmingWhitespace: String { trimming { $0 == " " || $0 == "\t" } }

    /// Without the leading and trailing characters for which `isTrimmed` is true.
    package func trimming(_ isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
