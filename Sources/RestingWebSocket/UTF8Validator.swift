import RestingCore

/// Checks UTF-8 as it arrives, so that a text message split across frames is refused at its first bad byte, not
/// once it is whole (RFC 6455 §8.1): the standard's table of well-formed sequences (Unicode §3.9, table 3-7) —
/// no overlong forms, no surrogates, nothing past U+10FFFF.
struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current character.
    private var pending = 0
    /// The range the next continuation byte must fall in (narrower than 0x80...0xBF after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the text so far ends on a character boundary.
    var isComplete: Bool { pending == 0 }

    /// Takes the next bytes; `false` at the first one that cannot be part of UTF-8 here.
    mutating func take<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        for byte in bytes {
            if pending == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: (pending, lower, upper) = (1, 0x80, 0xBF)
                case 0xE0: (pending, lower, upper) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: (pending, lower, upper) = (2, 0x80, 0xBF)
                case 0xED: (pending, lower, upper) = (2, 0x80, 0x9F)
                case 0xF0: (pending, lower, upper) = (3, 0x90, 0xBF)
                case 0xF1...0xF3: (pending, lower, upper) = (3, 0x80, 0xBF)
                case 0xF4: (pending, lower, upper) = (3, 0x80, 0x8F)
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                pending -= 1
                (lower, upper) = (0x80, 0xBF)
            }
        }
        return true
    }
}
