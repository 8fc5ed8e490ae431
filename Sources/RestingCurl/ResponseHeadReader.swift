import RestingCore

/// A response's head as libcurl hands it over, one line at a time: its fields, the length it announces, and whether
/// the blank line that ends it has come — the lines after it, a chunked body's trailers, are kept apart and never
/// join the head, where they could supply a `Location` or a `Retry-After` that the head's checks have already
/// passed. A new status line (after a `100 Continue`, say) starts a new head.
package struct ResponseHeadReader {
    /// Where the current response is.
    package enum Phase: Equatable {
        /// Its head's lines are arriving.
        case head
        /// Its head has ended: what follows is trailers.
        case trailers
    }

    /// What a line did to the head.
    package enum Step: Equatable {
        /// It was taken (a field, a status line, a trailer left out).
        case taken
        /// It was the blank line that ends the head.
        case ended
        /// It makes the response unusable, for the reason given: the transfer must fail.
        case malformed(String)
    }

    /// All the header bytes a server may send before the transfer fails.
    static var maximumBytes: Int { 256 * 1024 }
    /// Room reserved for a head's fields: 12 of 80 bytes stay within glibc's per-thread cache (1,032 bytes), so the
    /// room a streamed head gives back (``shrinkToFit()``) is the next head's, not a hole.
    static var typicalFieldCount: Int { 12 }

    package private(set) var phase = Phase.head
    package private(set) var fields = HTTPHeaderFields()
    /// The fields after the body, which libcurl hands over as header lines once the body has ended.
    package private(set) var trailers = HTTPHeaderFields()
    /// The current response's `Content-Length`, read as its line arrived.
    private(set) var announcedLength: Int64?
    /// Header bytes of every response of the transfer so far: what the limit bounds, and part of what has arrived.
    private(set) var bytes = 0

    /// A reader before the first line.
    package init() {}

    /// Takes one line, as libcurl delivers it (with its line break).
    package mutating func read(_ line: UnsafeBufferPointer<UInt8>) -> Step {
        bytes += line.count
        guard bytes <= Self.maximumBytes else {
            return .malformed("response headers larger than \(Self.maximumBytes) bytes")
        }
        if HeaderLine.isStatusLine(line) {
            // libcurl takes status lines RFC 9112 does not (`Http/1.1`, `HTTP/1.1 200`, `HTTP/1.1 2000`): refuse them,
            // as every transport must.
            if let fault = HeaderLine.statusLineFault(line) { return .malformed("malformed status line: \(fault)") }
            fields = HTTPHeaderFields()
            // Most heads fit: one allocation rather than a regrowth (and a copy) at 1, 2, 4 and 8 fields.
            fields.reserveCapacity(Self.typicalFieldCount)
            phase = .head
            announcedLength = nil
            trailers = HTTPHeaderFields()
            return .taken
        }
        if HeaderLine.trimmed(line[...]).isEmpty {
            phase = .trailers
            return .ended
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .taken }
        let nameBytes = HeaderLine.trimmed(line[..<colon])
        let name = String(decoding: nameBytes, as: UTF8.self)
        let value = String(decoding: HeaderLine.trimmed(line[(colon + 1)...]), as: UTF8.self)
        guard phase == .head else {
            trailers.add(name: name, value: value)
            return .taken
        }
        if HeaderLine.isContentLength(nameBytes) {
            // Two different lengths leave the body's end to a guess (RFC 9112 §6.3): refuse the response.
            if let earlier = fields["Content-Length"], earlier != value {
                return .malformed("conflicting Content-Length headers")
            }
            announcedLength = Int64(value)
        }
        fields.add(name: name, value: value)
        return .taken
    }

    /// Gives back the room reserved for fields that never came: a streamed head lives as long as its stream, and ten
    /// thousand open streams would each keep the typical head's room.
    mutating func shrinkToFit() { fields.shrinkToFit() }
}
