#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON body sent inside the object an API wraps values in — `{"data": …}`, or deeper for a dotted key path
/// (`"payload.item"`): what ``Endpoint/wrapping(_:)`` puts around it.
enum RequestEnvelope {
    /// `json` inside an object per name of `keys`, outermost first. The names are written here, as they are: an
    /// encoder's key strategy would rename them.
    static func wrap(_ json: Data, in keys: [String]) -> Data {
        var wrapped = Data()
        for key in keys {
            wrapped.append(UInt8(ascii: "{"))
            appendQuoted(key, to: &wrapped)
            wrapped.append(UInt8(ascii: ":"))
        }
        wrapped.append(json)
        wrapped.append(contentsOf: repeatElement(UInt8(ascii: "}"), count: keys.count))
        return wrapped
    }

    /// `name` as a JSON string (RFC 8259 §7): quotes, backslashes and control characters escaped.
    private static func appendQuoted(_ name: String, to data: inout Data) {
        let hex = Array("0123456789abcdef".utf8)
        data.append(UInt8(ascii: "\""))
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): data.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0..<0x20: data.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
            default: data.append(byte)
            }
        }
        data.append(UInt8(ascii: "\""))
    }
}
