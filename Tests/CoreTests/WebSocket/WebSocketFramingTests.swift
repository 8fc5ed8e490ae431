import Foundation
import Testing

@testable import RestingCore
@testable import RestingWebSocket

/// RFC 6455's framing without a socket: frames written and read back, what a frame alone shows to be wrong,
/// messages put back together from fragments, UTF-8 checked as it arrives, close frames.
@Suite("WebSocket framing")
struct WebSocketFramingTests {
    /// `frame` as a server sends it (unmasked), read back by a parser fed `step` bytes at a time.
    private func roundTrip(_ frame: WebSocketFrame, step: Int) throws -> WebSocketFrame? {
        let bytes = frame.encoded(maskingKey: nil)
        var parser = WebSocketFrameParser(maximumFrameSize: 1 << 20, allowsCompression: true)
        var read: WebSocketFrame?
        for start in stride(from: 0, to: bytes.count, by: step) {
            parser.append(bytes[start..<min(start + step, bytes.count)])
            if let frame = try parser.nextFrame() { read = frame }
        }
        #expect(parser.bufferedCount == 0)
        return read
    }

    @Test("a frame of each length encoding reads back whole, however the bytes are split", arguments: [1, 7, 4096])
    func lengths(_ step: Int) throws {
        for length in [0, 1, 125, 126, 65_535, 65_536, 200_000] {
            let frame = WebSocketFrame(
                isFinal: length % 2 == 0, opcode: .binary,
                payload: Data((0..<length).map { UInt8(truncatingIfNeeded: $0) }))
            #expect(try roundTrip(frame, step: step) == frame)
        }
    }

    @Test("a client's frame is masked: RFC 6455's example, and unmasking gives the payload back")
    func masking() {
        // RFC 6455 §5.7: a masked "Hello" with the key 37 fa 21 3d.
        let frame = WebSocketFrame(isFinal: true, opcode: .text, payload: Data("Hello".utf8))
        let bytes = frame.encoded(maskingKey: 0x37FA_213D)
        #expect([UInt8](bytes) == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        var long = [UInt8](repeating: 0xAB, count: 1_003)
        long.withUnsafeMutableBytes { WebSocketMask.apply([1, 2, 3, 4], to: $0) }
        long.withUnsafeMutableBytes { WebSocketMask.apply([1, 2, 3, 4], to: $0) }
        #expect(long == [UInt8](repeating: 0xAB, count: 1_003))
    }

    @Test(
        "what one frame alone shows to be wrong is refused before its payload is buffered",
        arguments: [
            ([0x81, 0x85, 0, 0, 0, 0], "the server masked a frame"),
            ([0xA1, 0x00], "a frame has RSV2 or RSV3 set"),
            ([0xC1, 0x00], "a frame has RSV1 set where no extension allows it"),
            ([0x83, 0x00], "a frame has the reserved opcode 3"),
            ([0x09, 0x00], "a control frame is fragmented"),
            ([0x89, 0x7E, 0x00, 0x7E], "a control frame is longer than 125 bytes"),
            ([0x82, 0x7E, 0x00, 0x05], "a frame's length is not in its shortest form"),
            ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], "a frame's length has its top bit set"),
        ] as [([UInt8], String)])
    func violations(_ bytes: [UInt8], _ detail: String) {
        var parser = WebSocketFrameParser(maximumFrameSize: 1 << 20)
        parser.append(Data(bytes))
        #expect(throws: WebSocketFailure(.protocolViolation, detail)) { try parser.nextFrame() }
    }

    @Test("a frame announced past the limit fails at its header: no byte of its payload is waited for")
    func oversizedFrame() {
        var parser = WebSocketFrameParser(maximumFrameSize: 1_000)
        parser.append(Data([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0]))  // 4 GiB announced, nothing sent
        #expect(
            throws: WebSocketFailure(.messageTooLarge, "a 4294967296-byte frame is larger than the 1000-byte limit")
        ) {
            try parser.nextFrame()
        }
    }

    @Test("fragments make one message; control frames between them are handed out as they come")
    func reassembly() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(try assembler.take(WebSocketFrame(isFinal: false, opcode: .text, payload: Data("hel".utf8))) == nil)
        #expect(
            try assembler.take(WebSocketFrame(isFinal: true, opcode: .ping, payload: Data("p".utf8)))
                == .ping(Data("p".utf8)))
        #expect(
            try assembler.take(WebSocketFrame(isFinal: false, opcode: .continuation, payload: Data("lo ".utf8))) == nil)
        #expect(try assembler.take(WebSocketFrame(isFinal: true, opcode: .pong, payload: Data())) == .pong(Data()))
        #expect(
            try assembler.take(WebSocketFrame(isFinal: true, opcode: .continuation, payload: Data("you".utf8)))
                == .message(.text("hello you")))
        #expect(throws: WebSocketFailure(.protocolViolation, "a continuation frame continues no message")) {
            try assembler.take(WebSocketFrame(isFinal: true, opcode: .continuation, payload: Data()))
        }
    }

    @Test("a new message inside another, and a message past the limit, are refused")
    func assemblyViolations() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 4)
        _ = try assembler.take(WebSocketFrame(isFinal: false, opcode: .binary, payload: Data([1])))
        #expect(throws: WebSocketFailure(.protocolViolation, "a new message began before the last one ended")) {
            try assembler.take(WebSocketFrame(isFinal: true, opcode: .binary, payload: Data([2])))
        }
        var small = WebSocketMessageAssembler(maximumMessageSize: 4)
        _ = try small.take(WebSocketFrame(isFinal: false, opcode: .binary, payload: Data([1, 2, 3])))
        #expect(throws: WebSocketFailure(.messageTooLarge, "a message grew past the 4-byte limit")) {
            try small.take(WebSocketFrame(isFinal: true, opcode: .continuation, payload: Data([4, 5])))
        }
    }

    @Test("text split at every byte is checked as it arrives: valid text passes, the first bad byte fails")
    func utf8AcrossFragments() throws {
        let text = Array("aé€𝄞z".utf8)
        for cut in 0...text.count {
            var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
            _ = try assembler.take(WebSocketFrame(isFinal: false, opcode: .text, payload: Data(text[..<cut])))
            let whole = try assembler.take(
                WebSocketFrame(isFinal: true, opcode: .continuation, payload: Data(text[cut...])))
            #expect(whole == .message(.text("aé€𝄞z")))
        }
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        // An overlong '/' fails in its first fragment, before the message ends.
        #expect(throws: WebSocketFailure(.invalidText, "a text message is not UTF-8")) {
            try assembler.take(WebSocketFrame(isFinal: false, opcode: .text, payload: Data([0xC0, 0xAF])))
        }
        var truncated = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(throws: WebSocketFailure(.invalidText, "a text message ends mid-character")) {
            try truncated.take(WebSocketFrame(isFinal: true, opcode: .text, payload: Data([0xE2, 0x82])))
        }
    }

    @Test("the incremental check agrees with the standard library on every 1- and 2-byte sequence, and on the edges")
    func utf8Validator() {
        var samples: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for first in 0xC0...0xF5 {
            for second in stride(from: 0x70, through: 0xC0, by: 8) { samples.append([UInt8(first), UInt8(second)]) }
        }
        samples += [
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF],
        ]
        for bytes in samples {
            var validator = UTF8Validator()
            let valid = validator.take(bytes) && validator.isComplete
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    @Test("close frames: none, a code, a code and a reason; a one-byte payload and unsendable codes are refused")
    func closeFrames() throws {
        #expect(try WebSocketMessageAssembler.closure(of: Data()) == WebSocketClosure(code: .noStatusReceived))
        #expect(
            try WebSocketMessageAssembler.closure(of: Data([0x03, 0xE8])) == WebSocketClosure(code: .normalClosure))
        #expect(
            try WebSocketMessageAssembler.closure(of: Data([0x0F, 0xA1]) + Data("bye".utf8))
                == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4001), reason: "bye"))
        #expect(throws: WebSocketFailure(.protocolViolation, "a close frame of one byte")) {
            try WebSocketMessageAssembler.closure(of: Data([0x03]))
        }
        for code: UInt16 in [999, 1004, 1005, 1006, 1015, 2999, 5000] {
            #expect(throws: WebSocketFailure.self) {
                try WebSocketMessageAssembler.closure(of: Data([UInt8(code >> 8), UInt8(code & 0xFF)]))
            }
        }
        let long = String(repeating: "€", count: 100)  // 300 bytes: cut to 41 characters, 123 bytes
        let payload = WebSocketMessageAssembler.closePayload(code: .goingAway, reason: long)
        #expect(payload.count == 2 + 123)
        #expect(try WebSocketMessageAssembler.closure(of: payload).reason == String(repeating: "€", count: 41))
    }

    @Test("the handshake's accept value is RFC 6455's example, from SHA-1 (FIPS 180's vectors)")
    func handshakeAccept() {
        #expect(
            WebSocketHandshake<Nothing, Nothing>.accept(for: "dGhlIHNhbXBsZSBub25jZQ==")
                == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }
}
