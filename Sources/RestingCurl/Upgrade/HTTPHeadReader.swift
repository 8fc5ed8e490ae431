import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an HTTP/1.1 response head from the bytes of an upgrade's connection (``UpgradeExchange``): the status line
/// as RFC 9112 §4 allows it, fields without obsolete line folding, within ``UpgradeExchange/maximumHeadSize``.
package struct HTTPHeadReader {
    package struct Head {
        package var status: Int
        package var headers: HTTPHeaderFields
    }

    package init() {}

    private var buffer: [UInt8] = []
    /// Bytes after the head's blank line.
    private var remainder: [UInt8] = []

    /// Takes the next bytes; the head once its blank line has arrived.
    package mutating func take(_ bytes: Data) throws(RestingError) -> Head? {
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        guard let end = Self.blankLine(in: buffer, from: searchFrom) else {
            guard buffer.count <= UpgradeExchange.maximumHeadSize else {
                throw UpgradeExchange.malformed("a response head longer than \(UpgradeExchange.maximumHeadSize) bytes")
            }
            return nil
        }
        remainder = Array(buffer[(end + 4)...])
        return try Self.parse(buffer[..<end])
    }

    /// What came after the head.
    package mutating func takeRemainder() -> Data {
        defer { remainder = [] }
        return Data(remainder)
    }

    private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in start...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parse(_ head: ArraySlice<UInt8>) throws(RestingError) -> Head {
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        let statusLine = Array(lines.removeFirst())
        if let fault = statusLine.withUnsafeBufferPointer({ HeaderLine.statusLineFault($0) }) {
            throw UpgradeExchange.malformed(fault)
        }
        // The three digits after the version's space, wherever the version ends (`HTTP/1 101` is valid).
        guard let space = statusLine.firstIndex(of: 32), space + 4 <= statusLine.count,
            let status = Int(String(decoding: statusLine[(space + 1)..<(space + 4)], as: UTF8.self))
        else {
            throw UpgradeExchange.malformed("the status code is not three digits")
        }
        var headers = HTTPHeaderFields()
        for line in lines {
            guard let first = line.first, first != 32, first != 9 else {
                throw UpgradeExchange.malformed("a folded or empty header line")
            }
            guard let colon = line.firstIndex(of: 58) else {
                throw UpgradeExchange.malformed("a header line without ':'")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace
            headers.add(name: name, value: value)
        }
        do {
            try headers.validate()
        } catch {
            throw UpgradeExchange.malformed("an invalid header field: \(error)")
        }
        return Head(status: status, headers: headers)
    }
}
