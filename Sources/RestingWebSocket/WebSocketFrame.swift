import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One RFC 6455 frame (§5.2), as it is read from or written to the wire.
package struct WebSocketFrame: Sendable, Equatable {
    /// What a frame carries.
    package enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between a message's fragments.
        package var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// Whether this is a message's last frame.
    package var isFinal: Bool
    /// RSV1: the message is compressed (permessage-deflate, RFC 7692), on its first frame only.
    package var isCompressed: Bool = false
    package var opcode: Opcode
    package var payload: Data

    package init(isFinal: Bool, isCompressed: Bool = false, opcode: Opcode, payload: Data) {
        self.isFinal = isFinal
        self.isCompressed = isCompressed
        self.opcode = opcode
        self.payload = payload
    }

    /// The largest payload a control frame may have.
    static let maximumControlPayload = 125

    /// The frame's bytes, masked with `maskingKey` as a client must (§5.3), or unmasked when `nil` (as a server).
    package func encoded(maskingKey: UInt32?) -> Data {
        var bytes = Data()
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((isFinal ? 0x80 : 0) | (isCompressed ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch payload.count {
        case 0...125:
            bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        default:
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
            }
        }
        guard let maskingKey else {
            bytes.append(payload)
            return bytes
        }
        let key = withUnsafeBytes(of: maskingKey.bigEndian) { Array($0) }
        bytes.append(contentsOf: key)
        let start = bytes.count
        bytes.append(payload)
        bytes.withUnsafeMutableBytes { raw in
            WebSocketMask.apply(key, to: UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
        }
        return bytes
    }
}

/// RFC 6455's masking (§5.3): each payload byte XORed with the key's byte at its position modulo 4.
enum WebSocketMask {
    /// Masks (or unmasks: it is its own inverse) `payload` with the 4-byte `key`, eight bytes at a time.
    static func apply(_ key: [UInt8], to payload: UnsafeMutableRawBufferPointer) {
        guard payload.count > 0, key.count == 4 else { return }
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { raw in
            for index in 0..<8 { raw[index] = key[index % 4] }
        }
        var offset = 0
        while payload.count - offset >= 8 {
            let masked = payload.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ word
            payload.storeBytes(of: masked, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < payload.count {
            payload[offset] ^= key[offset % 4]
            offset += 1
        }
    }
}
