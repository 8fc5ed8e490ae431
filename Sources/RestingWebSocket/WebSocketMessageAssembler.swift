import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Puts a peer's frames back together into messages (RFC 6455 §5.4), with control frames taken out from between
/// the fragments as they come; checks text as UTF-8 fragment by fragment and a message's size as it grows.
package struct WebSocketMessageAssembler: Sendable {
    /// What a frame amounts to.
    package enum Incoming: Sendable, Equatable {
        /// A message is whole.
        case message(WebSocketMessage)
        case ping(Data)
        case pong(Data)
        /// The peer's close frame.
        case close(WebSocketClosure)
    }

    /// The largest message accepted, all its fragments together (after decompression).
    let maximumMessageSize: Int
    /// permessage-deflate, when the handshake agreed to it.
    let deflate: PerMessageDeflate?
    /// Made at the first compressed message.
    private var inflater: MessageInflater?

    /// The message being assembled.
    private var partial: (isText: Bool, isCompressed: Bool, bytes: Data, text: UTF8Validator)?

    package init(maximumMessageSize: Int, deflate: PerMessageDeflate? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.deflate = deflate
    }

    /// What `frame` completes, or `nil` when it is a fragment of a message still arriving.
    package mutating func take(_ frame: WebSocketFrame) throws(WebSocketFailure) -> Incoming? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return .close(try Self.closure(of: frame.payload))
        case .text, .binary:
            guard partial == nil else {
                throw WebSocketFailure(.protocolViolation, "a new message began before the last one ended")
            }
            partial = (frame.opcode == .text, frame.isCompressed, Data(), UTF8Validator())
        case .continuation:
            guard partial != nil else {
                throw WebSocketFailure(.protocolViolation, "a continuation frame continues no message")
            }
        }
        guard var message = partial else { return nil }
        partial = nil
        let before = message.bytes.count
        if message.isCompressed {
            let inflater: MessageInflater
            if let existing = self.inflater { inflater = existing } else { inflater = try makeInflater() }
            try inflater.inflate(frame.payload, into: &message.bytes, limit: maximumMessageSize)
            if frame.isFinal { try inflater.finishMessage(into: &message.bytes, limit: maximumMessageSize) }
        } else {
            guard message.bytes.count + frame.payload.count <= maximumMessageSize else {
                throw WebSocketFailure(.messageTooLarge, "a message grew past the \(maximumMessageSize)-byte limit")
            }
            if message.bytes.isEmpty { message.bytes = frame.payload } else { message.bytes.append(frame.payload) }
        }
        if message.isText, !message.text.take(message.bytes[(message.bytes.startIndex + before)...]) {
            throw WebSocketFailure(.invalidText, "a text message is not UTF-8")
        }
        guard frame.isFinal else {
            partial = message
            return nil
        }
        guard message.isText else { return .message(.binary(message.bytes)) }
        guard message.text.isComplete else { throw WebSocketFailure(.invalidText, "a text message ends mid-character") }
        return .message(.text(String(decoding: message.bytes, as: UTF8.self)))
    }

    private mutating func makeInflater() throws(WebSocketFailure) -> MessageInflater {
        guard let inflater = MessageInflater(resetsEachMessage: deflate?.serverNoContextTakeover ?? false) else {
            throw WebSocketFailure(.protocolViolation, "zlib could not start an inflater")
        }
        self.inflater = inflater
        return inflater
    }

    /// The code and reason of a close frame's payload (§5.5.1): none (1005), or two bytes of code and UTF-8.
    static func closure(of payload: Data) throws(WebSocketFailure) -> WebSocketClosure {
        guard !payload.isEmpty else { return WebSocketClosure(code: .noStatusReceived) }
        guard payload.count >= 2 else { throw WebSocketFailure(.protocolViolation, "a close frame of one byte") }
        let code = WebSocketCloseCode(
            rawValue: UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1]))
        guard code.isSendable else {
            throw WebSocketFailure(.protocolViolation, "a close frame with the code \(code), which may not be sent")
        }
        let reason = payload.dropFirst(2)
        var validator = UTF8Validator()
        guard validator.take(reason), validator.isComplete else {
            throw WebSocketFailure(.invalidText, "a close reason is not UTF-8")
        }
        return WebSocketClosure(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// A close frame's payload for `code` and `reason`, the reason cut to 123 bytes on a character boundary.
    static func closePayload(code: WebSocketCloseCode, reason: String) -> Data {
        Data([UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]) + WebSocketClosure.reasonPayload(reason)
    }
}
