import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a chunked body (RFC 9112 §7.1) from a server's bytes as they arrive, however they are split: the chunks'
/// data kept, extensions and trailer fields read and dropped. What it keeps and what it reads of the trailer section
/// count together against `limit`, compared without arithmetic a server's number could overflow; a line (a chunk's
/// size, a trailer field) is at most ``maximumLineLength`` bytes.
package struct ChunkedBodyDecoder: Sendable {
    /// The longest chunk-size line or trailer field line accepted.
    package static let maximumLineLength = 8 * 1024

    private enum State: Sendable {
        case sizeLine
        case data(remaining: Int)
        /// The CRLF after a chunk's data.
        case dataEnd
        case trailerSection
        case complete
    }

    private var state = State.sizeLine
    /// The line being read, up to its LF.
    private var line: [UInt8] = []
    /// The body and the trailer section's bytes so far, never more than `limit`.
    private var counted: Int64 = 0
    private let limit: Int64
    /// The chunks' data so far.
    package private(set) var body = Data()

    /// A decoder that keeps at most `limit` bytes of body and trailer section together.
    package init(limit: Int64) { self.limit = max(0, limit) }

    /// Whether the last chunk and the trailer section have been read: the body is whole.
    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Takes the next bytes of the wire; bytes after the body's end are ignored. Throws
    /// ``/RestingCore/RestingError/responseTooLarge(limit:)`` past the limit and a malformed-response failure for anything that
    /// is not a chunked body.
    package mutating func take(_ bytes: Data) throws(RestingError) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .complete:
                return
            case .data(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                body.append(bytes[index..<(index + count)])
                index += count
                state = remaining == count ? .dataEnd : .data(remaining: remaining - count)
            case .sizeLine, .dataEnd, .trailerSection:
                guard let end = bytes[index...].firstIndex(of: 10) else {
                    try append(bytes[index...])
                    return
                }
                try append(bytes[index..<end])
                index = end + 1
                if line.last == 13 { line.removeLast() }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Adds bytes of the current line, within the line's length and, in the trailer section, the limit.
    private mutating func append(_ bytes: Data) throws(RestingError) {
        guard line.count + bytes.count <= Self.maximumLineLength + 1 else {  // + 1: the CR before the LF
            throw UpgradeExchange.malformed("a line of a chunked body longer than \(Self.maximumLineLength) bytes")
        }
        if case .trailerSection = state { try count(bytes.count) }
        line.append(contentsOf: bytes)
    }

    /// Counts `bytes` more against the limit.
    private mutating func count(_ bytes: Int) throws(RestingError) {
        guard Int64(bytes) <= limit - counted else { throw RestingError.responseTooLarge(limit: limit) }
        counted += Int64(bytes)
    }

    /// Acts on the line just read.
    private mutating func endLine() throws(RestingError) {
        switch state {
        case .sizeLine:
            let size = try Self.chunkSize(line)
            guard size > 0 else {
                state = .trailerSection
                return
            }
            try count(size)
            state = .data(remaining: size)
        case .dataEnd:
            guard line.isEmpty else { throw UpgradeExchange.malformed("a chunk without its CRLF") }
            state = .sizeLine
        case .trailerSection:
            if line.isEmpty { state = .complete }
        case .data, .complete:
            break
        }
    }

    /// A chunk-size line's size: hex digits only (no sign, no space before them), extensions after `;` ignored.
    private static func chunkSize(_ line: [UInt8]) throws(RestingError) -> Int {
        let digits = line.prefix { $0 != 59 && $0 != 32 && $0 != 9 }  // up to ';' or whitespace before it
        var size = 0
        guard !digits.isEmpty else { throw UpgradeExchange.malformed("an invalid chunk size") }
        for byte in digits {
            guard let digit = hexValue(byte), size <= (Int.max - digit) / 16 else {
                throw UpgradeExchange.malformed("an invalid chunk size")
            }
            size = size * 16 + digit
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte - 48)
        case 65...70: Int(byte - 55)
        case 97...102: Int(byte - 87)
        default: nil
        }
    }
}
