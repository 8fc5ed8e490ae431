#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Strict percent-encoding: every byte but RFC 3986's unreserved characters is encoded.
package enum PercentEncoding {
    package static func encode(_ text: String) -> String {
        // Most values (ids, names, numbers) need no escape: they are returned as they are, not copied byte by byte.
        guard !text.utf8.allSatisfy(isUnreserved) else { return text }
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// `text` with every valid `%XX` escape decoded (and, with `plusIsSpace`, `+` read as a space, as forms
    /// write it); a malformed escape stays as it is, and bytes that are not UTF-8 become U+FFFD.
    package static func decode(_ text: String, plusIsSpace: Bool = false) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2, let high = hexValue(input[input.startIndex]),
                let low = hexValue(input[input.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of a hexadecimal digit, in either case; `nil` for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
