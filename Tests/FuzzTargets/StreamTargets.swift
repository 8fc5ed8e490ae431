import RestingCore
import RestingStreaming

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// Any bytes parse as Server-Sent Events without a crash, in memory bounded by the limit; cutting them into
    /// chunks anywhere (at points the input itself picks) changes nothing; an ID never holds NUL.
    static let serverSentEvents = FuzzTarget(name: "server-sent-events") { input, violation in
        let limit = 256
        func parse(_ chunks: [Data]) -> Result<[ServerSentEventMessage], StreamElementTooLarge> {
            Result { () throws(StreamElementTooLarge) -> [ServerSentEventMessage] in
                var parser = EventStreamParser(maximumEventSize: limit)
                var events: [ServerSentEventMessage] = []
                for chunk in chunks { events += try parser.parse(chunk) }
                parser.finish()
                return events
            }
        }
        let whole = parse([input])
        let chunked = parse(input.cutAtPointsItPicks())
        switch (whole, chunked) {
        case (.success(let one), .success(let other)) where one != other:
            violation("one chunk gave \(one), chunks gave \(other)")
        case (.success, .failure(let error)), (.failure(let error), .success):
            violation("only one way of cutting failed: \(error)")
        default:
            break
        }
        if case .success(let events) = whole {
            for event in events {
                if event.lastEventID.utf8.contains(0) {
                    violation("an ID with NUL: \(event.lastEventID.debugDescription)")
                }
                // The limit counts bytes received; each invalid byte becomes a 3-byte U+FFFD once decoded.
                if event.data.utf8.count > 3 * limit {
                    violation("\(event.data.utf8.count) bytes of data from at most \(limit) received")
                }
                if event.event.isEmpty { violation("an event without a type") }
            }
        }
    }

    /// Lines never hold CR or LF, never exceed the limit, and do not depend on where the chunks were cut.
    static let lines = FuzzTarget(name: "lines") { input, violation in
        let limit = 64
        func split(_ chunks: [Data]) -> [[UInt8]]? {
            try? { () throws(StreamElementTooLarge) -> [[UInt8]] in
                var splitter = LineSplitter(maximumLineLength: limit)
                var lines: [[UInt8]] = []
                for chunk in chunks { try splitter.append(chunk) { lines.append(Array($0)) } }
                if let last = splitter.finish() { lines.append(last) }
                return lines
            }()
        }
        let whole = split([input])
        let chunked = split(input.cutAtPointsItPicks())
        if whole != chunked {
            violation("one chunk gave \(String(describing: whole)), chunks gave \(String(describing: chunked))")
        }
        for line in whole ?? [] {
            if line.contains(0x0A) || line.contains(0x0D) { violation("a line with a terminator in it: \(line)") }
            if line.count > limit { violation("a \(line.count)-byte line past the \(limit)-byte limit") }
        }
    }
}

extension Data {
    /// The input cut into chunks at offsets taken from its own bytes, so that the fuzzer explores cuts too.
    func cutAtPointsItPicks() -> [Data] {
        guard count > 1 else { return [self] }
        let bytes = Array(self)
        var cuts = Set<Int>()
        for (index, byte) in bytes.prefix(8).enumerated() { cuts.insert((Int(byte) * 31 + index * 7) % bytes.count) }
        let points = ([0] + cuts.sorted() + [bytes.count])
        return zip(points, points.dropFirst()).map { Data(bytes[$0..<$1]) }
    }
}
