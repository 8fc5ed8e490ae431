import RestingCore
import RestingWebSocket

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// Any bytes from a server read as WebSocket frames and messages without a crash, in memory bounded by the
    /// limits; cutting them anywhere changes nothing; every frame read writes back to the bytes it was read from;
    /// a text message is always UTF-8 and no message is over the limit.
    static let webSocketFrames = FuzzTarget(name: "websocket-frames") { input, violation in
        let limit = 512
        func read(_ chunks: [Data]) -> (
            frames: [WebSocketFrame], incoming: [WebSocketMessageAssembler.Incoming], failure: WebSocketFailure?
        ) {
            var parser = WebSocketFrameParser(maximumFrameSize: limit, allowsCompression: false)
            var assembler = WebSocketMessageAssembler(maximumMessageSize: limit)
            var frames: [WebSocketFrame] = []
            var incoming: [WebSocketMessageAssembler.Incoming] = []
            func consume(_ chunk: Data) throws(WebSocketFailure) {
                parser.append(chunk)
                while let frame = try parser.nextFrame() {
                    frames.append(frame)
                    if let next = try assembler.take(frame) { incoming.append(next) }
                }
            }
            for chunk in chunks {
                if case .failure(let failure) = Result(catching: { () throws(WebSocketFailure) in try consume(chunk) })
                {
                    return (frames, incoming, failure)
                }
            }
            return (frames, incoming, nil)
        }
        let whole = read([input])
        let chunked = read(input.cutAtPointsItPicks())
        if whole.frames != chunked.frames || whole.incoming != chunked.incoming || whole.failure != chunked.failure {
            violation("one chunk and chunks read differently: \(whole) / \(chunked)")
        }
        let rewritten = whole.frames.reduce(into: Data()) { $0.append($1.encoded(maskingKey: nil)) }
        if rewritten != input.prefix(rewritten.count) { violation("a frame does not write back to its bytes") }
        for case .message(let message) in whole.incoming where message.byteCount > limit {
            violation("a \(message.byteCount)-byte message past the \(limit)-byte limit")
        }
    }

    /// permessage-deflate: any bytes as a compressed message inflate without a crash and never past the limit; any
    /// bytes deflated (in pieces the input picks, context kept between them) inflate back to themselves.
    static let webSocketDeflate = FuzzTarget(name: "websocket-deflate") { input, violation in
        let limit = 4096
        let agreed = PerMessageDeflate()
        var hostile = WebSocketMessageAssembler(maximumMessageSize: limit, deflate: agreed)
        if case .message(let message)? = try? hostile.take(
            WebSocketFrame(isFinal: true, isCompressed: true, opcode: .binary, payload: input)),
            message.byteCount > limit
        {
            violation("\(message.byteCount) bytes inflated past the \(limit)-byte limit")
        }
        guard let deflater = MessageDeflater(resetsEachMessage: false) else { return violation("no deflater") }
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1 << 20, deflate: agreed)
        for piece in input.cutAtPointsItPicks() {
            guard let compressed = deflater.compress(piece) else { return violation("deflate failed") }
            let frame = WebSocketFrame(isFinal: true, isCompressed: true, opcode: .binary, payload: compressed)
            guard case .message(.binary(let inflated))? = try? assembler.take(frame), inflated == piece else {
                return violation("\(piece.count) bytes did not come back from deflate")
            }
        }
    }
}
