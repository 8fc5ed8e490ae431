import CZlib
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// permessage-deflate (RFC 7692) as a server agreed to it: which side keeps its compression context from message to
/// message, and the server's window.
package struct PerMessageDeflate: Sendable, Equatable {
    /// The server starts each message with an empty context: the client's inflater may forget between messages.
    package var serverNoContextTakeover = false
    /// The client must start each message with an empty context.
    package var clientNoContextTakeover = false
    /// The server's LZ77 window, 2^bits bytes (8–15).
    package var serverMaxWindowBits = 15

    /// The extension with no parameter: both contexts kept, full windows.
    package init() {}

    /// The offer a client makes: the extension, asking both sides to forget between messages when `noContextTakeover`.
    static func offer(noContextTakeover: Bool) -> String {
        noContextTakeover
            ? "permessage-deflate; client_no_context_takeover; server_no_context_takeover" : "permessage-deflate"
    }

    /// What a server's `Sec-WebSocket-Extensions` agreed to: `nil` for none; a failure for anything this client did
    /// not offer (another extension, an unknown or repeated parameter, a window out of range, `client_max_window_bits`,
    /// which is never offered: zlib cannot deflate with the 256-byte window it would allow).
    package static func agreed(in header: String?, offered: Bool) throws(WebSocketFailure) -> PerMessageDeflate? {
        guard let header, !header.trimmingWhitespace.isEmpty else { return nil }
        let extensions = header.split(separator: ",")
        guard offered, extensions.count == 1 else {
            throw WebSocketFailure(.handshakeInvalid, "the server chose an extension that was not offered")
        }
        let parts = extensions[0].split(separator: ";").map { String($0).trimmingWhitespace }
        guard parts.first?.lowercased() == "permessage-deflate" else {
            throw WebSocketFailure(.handshakeInvalid, "the server chose an extension that was not offered")
        }
        var agreed = PerMessageDeflate()
        var seen: Set<String> = []
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace }
            guard let name = pair.first?.lowercased(), !name.isEmpty else {
                throw WebSocketFailure(.handshakeInvalid, "permessage-deflate has an empty parameter")
            }
            guard seen.insert(name).inserted else {
                throw WebSocketFailure(.handshakeInvalid, "permessage-deflate repeats \(name)")
            }
            let value = pair.count == 2 ? pair[1].trimming { $0 == "\"" } : nil
            switch (name, value) {
            case ("server_no_context_takeover", nil): agreed.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): agreed.clientNoContextTakeover = true
            case ("server_max_window_bits", let bits?):
                guard let number = Int(bits), (8...15).contains(number), String(number) == bits else {
                    throw WebSocketFailure(.handshakeInvalid, "permessage-deflate's server_max_window_bits is invalid")
                }
                agreed.serverMaxWindowBits = number
            default:
                throw WebSocketFailure(.handshakeInvalid, "permessage-deflate has a parameter that was not offered")
            }
        }
        return agreed
    }
}

/// The four bytes a sync flush ends with, which RFC 7692 leaves off the wire (§7.2.1).
private let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

/// Compresses the messages this side sends (RFC 7692 §7.2.1): a raw deflate stream flushed at each message's end,
/// its last four bytes removed. Used by one sender at a time (the socket's send gate).
package final class MessageDeflater: @unchecked Sendable {
    // @unchecked: one writer at a time holds it, through the send gate.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let resetsEachMessage: Bool

    package init?(resetsEachMessage: Bool) {
        stream.initialize(to: z_stream())
        self.resetsEachMessage = resetsEachMessage
        guard rk_deflate_init_raw(stream, Z_DEFAULT_COMPRESSION, 15) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// `message` compressed, as a message's payload goes on the wire.
    package func compress(_ message: Data) -> Data? {
        var output = Data()
        let ok = message.withUnsafeBytes { input -> Bool in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            var chunk = [UInt8](repeating: 0, count: max(64, input.count / 2 + 64))
            repeat {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(buffer.count)
                    return deflate(stream, Z_SYNC_FLUSH)
                }
                guard status == Z_OK || status == Z_BUF_ERROR else { return false }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.pointee.avail_out))])
            } while stream.pointee.avail_out == 0
            return true
        }
        stream.pointee.next_in = nil
        guard ok, output.count >= 4, output.suffix(4).elementsEqual(syncFlushTail) else { return nil }
        if resetsEachMessage { deflateReset(stream) }
        return output.dropLast(4)
    }
}

/// Decompresses the messages the peer sends, fragment by fragment, never past the message limit — a few bytes that
/// inflate to gigabytes fail as ``/RestingWebSocketCore/WebSocketFailure/Kind/messageTooLarge`` after the limit, not after the gigabytes.
/// Used by the socket's reading loop only.
final class MessageInflater: @unchecked Sendable {
    // @unchecked: the reading loop is its only user.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let resetsEachMessage: Bool

    init?(resetsEachMessage: Bool) {
        stream.initialize(to: z_stream())
        self.resetsEachMessage = resetsEachMessage
        // The largest window whatever the server's: a larger window inflates what a smaller one deflated.
        guard rk_inflate_init_raw(stream, 15) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates the next compressed bytes of a message into `message`, which may hold at most `limit` bytes.
    func inflate(_ compressed: Data, into message: inout Data, limit: Int) throws(WebSocketFailure) {
        var failure: WebSocketFailure?
        compressed.withUnsafeBytes { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(buffer.count)
                    return CZlib.inflate(stream, Z_SYNC_FLUSH)
                }
                let produced = chunk.count - Int(stream.pointee.avail_out)
                guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
                    failure = WebSocketFailure(.protocolViolation, "a compressed message is not valid deflate data")
                    return
                }
                guard message.count + produced <= limit else {
                    failure = WebSocketFailure(.messageTooLarge, "a message grew past the \(limit)-byte limit")
                    return
                }
                message.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { inflateReset(stream) }
                // Done once zlib took every byte and had room left: it has nothing more to give.
                if stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { return }
                if status == Z_BUF_ERROR, produced == 0 { return }
            }
        }
        stream.pointee.next_in = nil
        if let failure { throw failure }
    }

    /// Ends a message: the tail the sender left off goes in, and the context is forgotten if the server asked.
    func finishMessage(into message: inout Data, limit: Int) throws(WebSocketFailure) {
        try inflate(Data(syncFlushTail), into: &message, limit: limit)
        if resetsEachMessage { inflateReset(stream) }
    }
}
