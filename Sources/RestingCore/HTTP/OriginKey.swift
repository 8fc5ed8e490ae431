#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Origin {
    /// `url`'s origin as ``description`` spells it (`https://api.example.com:443`), read from the URL's text in one
    /// pass over its bytes: the resilience links key every call by it (``HTTPRequest/originKey``), and `URL`'s
    /// component accessors cost a microsecond a call. A URL the pass does not take as plain (an IPv6, non-ASCII or
    /// percent-encoded host, another scheme) goes through ``init(_:)``; `nil` when it has no origin.
    package static func key(of url: URL) -> String? {
        var text = url.absoluteString
        let plain = text.withUTF8 { bytes -> String? in
            guard let authority = PlainAuthority(bytes), let port = authority.port(in: bytes) else { return nil }
            // The key's bytes, written once into the string: scheme, "://", the host lowercased, ":", the port (given
            // or the scheme's).
            let scheme = authority.isHTTPS ? "https://" : "http://"
            let portText = String(port)
            let count = scheme.utf8.count + authority.host.count + 1 + portText.utf8.count
            return String(unsafeUninitializedCapacity: count) { key in
                var index = 0
                for byte in scheme.utf8 {
                    key[index] = byte
                    index += 1
                }
                for byte in bytes[authority.host] {
                    key[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                    index += 1
                }
                key[index] = UInt8(ascii: ":")
                index += 1
                for byte in portText.utf8 {
                    key[index] = byte
                    index += 1
                }
                return index
            }
        }
        return plain ?? Origin(url)?.description
    }
}

/// Where a plain `http(s)://[user@]host[:port]` authority sits in a URL's bytes: an ASCII host that needs no
/// decoding, not an IPv6 literal, a port of digits.
private struct PlainAuthority {
    let isHTTPS: Bool
    let host: Range<Int>
    let portDigits: Range<Int>?

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        switch colon {
        case 4 where Self.scheme(bytes, is: "http"): isHTTPS = false
        case 5 where Self.scheme(bytes, is: "https"): isHTTPS = true
        default: return nil
        }
        let start = colon + 3
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
            bytes[end] != UInt8(ascii: "#")
        {
            end += 1
        }
        var hostStart = start
        if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        var hostEnd = end
        portDigits = bytes[hostStart..<end].lastIndex(of: UInt8(ascii: ":")).map { colon in
            hostEnd = colon
            return (colon + 1)..<end
        }
        guard hostStart < hostEnd, bytes[hostStart] != UInt8(ascii: "["),
            bytes[hostStart..<hostEnd].allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }),
            bytes[portDigits ?? end..<end].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        host = hostStart..<hostEnd
    }

    /// The port given, or the scheme's; `nil` past 65535.
    func port(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let portDigits, !portDigits.isEmpty else { return isHTTPS ? 443 : 80 }
        var number = 0
        for byte in bytes[portDigits] {
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
            guard number <= 65535 else { return nil }
        }
        return number
    }

    /// Whether `bytes` start with `name` (lowercase letters), in any case.
    private static func scheme(_ bytes: UnsafeBufferPointer<UInt8>, is name: StaticString) -> Bool {
        name.withUTF8Buffer { name in name.indices.allSatisfy { bytes[$0] | 0x20 == name[$0] } }
    }
}
