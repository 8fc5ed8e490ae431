import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts a byte stream into lines as chunks arrive: LF, CRLF and a lone CR all end a line (a CRLF split between
/// two chunks counts once), and a line longer than the limit fails instead of growing without bound.
///
/// ```swift
/// var splitter = LineSplitter(maximumLineLength: 1024)
/// try splitter.append(chunk) { line in print(String(decoding: line, as: UTF8.self)) }
/// if let last = splitter.finish() { … }   // the last line had no terminator
/// ```
package struct LineSplitter: Sendable {
    package let maximumLineLength: Int
    private var partial: [UInt8] = []
    /// The previous chunk ended with CR: an LF opening this one belongs to it.
    private var skipsLeadingLF = false

    package init(maximumLineLength: Int) { self.maximumLineLength = max(1, maximumLineLength) }

    /// Feeds `chunk`, calling `line` with each line it completes (without its terminator).
    package mutating func append(
        _ chunk: Data, line: (UnsafeBufferPointer<UInt8>) throws(StreamElementTooLarge) -> Void
    ) throws(StreamElementTooLarge) {
        var failure: StreamElementTooLarge?
        chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if skipsLeadingLF, bytes.first == 0x0A { start = 1 }
            if !bytes.isEmpty { skipsLeadingLF = false }
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x0A || byte == 0x0D else {
                    index += 1
                    continue
                }
                do throws(StreamElementTooLarge) {
                    try complete(UnsafeBufferPointer(rebasing: bytes[start..<index]), line: line)
                } catch {
                    failure = error
                    return
                }
                if byte == 0x0D {
                    if index + 1 < bytes.count {
                        if bytes[index + 1] == 0x0A { index += 1 }
                    } else {
                        skipsLeadingLF = true
                    }
                }
                index += 1
                start = index
            }
            let rest = UnsafeBufferPointer(rebasing: bytes[start...])
            guard partial.count + rest.count <= maximumLineLength else {
                failure = StreamElementTooLarge(limit: maximumLineLength)
                return
            }
            partial.append(contentsOf: rest)
        }
        if let failure { throw failure }
    }

    private mutating func complete(
        _ tail: UnsafeBufferPointer<UInt8>, line: (UnsafeBufferPointer<UInt8>) throws(StreamElementTooLarge) -> Void
    ) throws(StreamElementTooLarge) {
        guard partial.count + tail.count <= maximumLineLength else {
            throw StreamElementTooLarge(limit: maximumLineLength)
        }
        guard !partial.isEmpty else { return try line(tail) }
        partial.append(contentsOf: tail)
        defer { partial.removeAll(keepingCapacity: true) }
        try partial.withUnsafeBufferPointer { (whole) throws(StreamElementTooLarge) in try line(whole) }
    }

    /// The stream ended: the last line, if it had bytes but no terminator.
    package mutating func finish() -> [UInt8]? {
        defer { partial.removeAll() }
        return partial.isEmpty ? nil : partial
    }
}
