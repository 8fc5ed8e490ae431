/// Character classes of RFC 9110 §5.6.2.
package enum HTTPToken {
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        // One switch, no string: every header name of every call is checked byte by byte.
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `text` is a token: not empty, and only token characters.
    package static func isToken(_ text: String) -> Bool {
        // Over the contiguous bytes (free for a native string): the UTF-8 view's iterator costs more than the check.
        var text = text
        return text.withUTF8 { !$0.isEmpty && $0.allSatisfy(isTokenCharacter) }
    }
}
