#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SHA-256 (FIPS 180-4): what the HTTP cache keys and stores in place of a credential (a digest, never the
/// value), and what the demo and the tests check transferred bytes with (image_server reports the digest of
/// what it stored). Not constant-time.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk)            // as often as needed
/// let hex = hasher.finalizeHex()
/// ```
package struct SHA256 {
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes of an incomplete block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0
    private var schedule = [UInt32](repeating: 0, count: 64)

    package init() {}

    /// The digest of `data` as lowercase hex.
    package static func hex(_ data: Data) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalizeHex()
    }

    package mutating func update(_ data: Data) {
        length += UInt64(data.count)
        data.withUnsafeBytes { bytes in
            var offset = 0
            if !pending.isEmpty {
                let taken = min(64 - pending.count, bytes.count)
                pending.append(contentsOf: bytes[0..<taken])
                offset = taken
                guard pending.count == 64 else { return }
                let block = pending
                pending.removeAll(keepingCapacity: true)
                block.withUnsafeBytes { compress(UnsafeRawBufferPointer(rebasing: $0[0..<64])) }
            }
            while bytes.count - offset >= 64 {
                compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 64)]))
                offset += 64
            }
            pending.append(contentsOf: bytes[offset...])
        }
    }

    /// The digest of everything given to ``update(_:)``, as lowercase hex.
    package mutating func finalizeHex() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var digits: [UInt8] = []
        digits.reserveCapacity(64)
        for byte in finalize() {
            digits.append(hex[Int(byte >> 4)])
            digits.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The digest of everything given to ``update(_:)``: 32 bytes.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length * 8
        var tail: [UInt8] = [0x80]
        while (pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        update(Data(tail))
        return state.flatMap { word in
            stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
        }
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`, as lowercase hex.
    package static func authenticationCodeHex(of message: Data, key: [UInt8]) -> String {
        var block =
            key.count > 64
            ? {
                var hasher = SHA256()
                hasher.update(Data(key))
                return hasher.finalize()
            }() : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(Data(block.map { $0 ^ 0x36 }))
        inner.update(message)
        var outer = SHA256()
        outer.update(Data(block.map { $0 ^ 0x5c }))
        outer.update(Data(inner.finalize()))
        return outer.finalizeHex()
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        for i in 0..<16 {
            schedule[i] =
                UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8
                | UInt32(block[i * 4 + 3])
        }
        for i in 16..<64 {
            let s0 = schedule[i - 15].rotatedRight(7) ^ schedule[i - 15].rotatedRight(18) ^ (schedule[i - 15] >> 3)
            let s1 = schedule[i - 2].rotatedRight(17) ^ schedule[i - 2].rotatedRight(19) ^ (schedule[i - 2] >> 10)
            schedule[i] = schedule[i - 16] &+ s0 &+ schedule[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for i in 0..<64 {
            let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ Self.k[i] &+ schedule[i]
            let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
        }
        for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { state[i] = state[i] &+ value }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
