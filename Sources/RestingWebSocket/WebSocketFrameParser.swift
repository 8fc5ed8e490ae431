import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts the bytes a server sends into RFC 6455 frames, refusing what one frame alone shows to be wrong: a masked
/// frame (a server never masks), a reserved bit or opcode, a fragmented or oversized control frame, a length that is
/// not minimal or has its top bit set, a frame longer than the limit — the last before its payload is buffered, so a
/// peer announcing a huge frame costs no memory.
///
/// ```swift
/// var parser = WebSocketFrameParser(maximumFrameSize: 1 << 20)
/// parser.append(bytesFromTheSocket)
/// while let frame = try parser.nextFrame() { … }
/// ```
package struct WebSocketFrameParser: Sendable {
    /// The largest payload accepted.
    let maximumFrameSize: Int
    /// Whether RSV1 may be set (permessage-deflate was negotiated).
    let allowsCompression: Bool

    private var buffer: [UInt8] = []
    /// Where the next frame starts in `buffer`.
    private var start = 0

    package init(maximumFrameSize: Int, allowsCompression: Bool = false) {
        self.maximumFrameSize = maximumFrameSize
        self.allowsCompression = allowsCompression
    }

    /// Bytes received and not yet part of a returned frame.
    package var bufferedCount: Int { buffer.count - start }

    package mutating func append(_ bytes: Data) {
        // Dropped from the front only when that moves less than it frees: reading a 16 MiB frame in 16 KiB pieces
        // must not copy the 16 MiB a thousand times.
        if start > 0, start >= buffer.count - start {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or `nil` until more bytes arrive.
    package mutating func nextFrame() throws(WebSocketFailure) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard second & 0x80 == 0 else { throw violation("the server masked a frame") }
        guard first & 0x30 == 0 else { throw violation("a frame has RSV2 or RSV3 set") }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw violation("a frame has the reserved opcode \(first & 0x0F)")
        }
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        if isCompressed, !allowsCompression || opcode.isControl || opcode == .continuation {
            throw violation("a frame has RSV1 set where no extension allows it")
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if opcode.isControl {
            guard isFinal else { throw violation("a control frame is fragmented") }
            guard length <= UInt64(WebSocketFrame.maximumControlPayload) else {
                throw violation("a control frame is longer than 125 bytes")
            }
        } else if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            guard length > 125 else { throw violation("a frame's length is not in its shortest form") }
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = buffer[(start + 2)..<(start + 10)].reduce(0) { $0 << 8 | UInt64($1) }
            guard length >> 63 == 0 else { throw violation("a frame's length has its top bit set") }
            guard length > 0xFFFF else { throw violation("a frame's length is not in its shortest form") }
            headerLength = 10
        }
        guard length <= UInt64(maximumFrameSize) else {
            throw WebSocketFailure(
                .messageTooLarge, "a \(length)-byte frame is larger than the \(maximumFrameSize)-byte limit")
        }
        let frameLength = headerLength + Int(length)
        guard available >= frameLength else { return nil }
        let payload = Data(buffer[(start + headerLength)..<(start + frameLength)])
        start += frameLength
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
        }
        return WebSocketFrame(isFinal: isFinal, isCompressed: isCompressed, opcode: opcode, payload: payload)
    }

    private func violation(_ detail: String) -> WebSocketFailure { WebSocketFailure(.protocolViolation, detail) }
}
