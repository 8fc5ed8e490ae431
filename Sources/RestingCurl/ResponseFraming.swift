import RestingCore

/// Where a response body ends, read from the bytes on the wire (before libcurl undoes the chunked coding): what
/// tells a transfer that its response is whole while its request body is still open. libcurl itself keeps such a
/// transfer running until the upload ends — forever, for a body whose producer waits for the response — so the
/// driver ends it instead. Only transfers whose body is an async sequence watch for it.
package struct ResponseFraming: Equatable {
    package enum State: Equatable {
        /// A `Content-Length` body, this many bytes still to come.
        case length(remaining: Int64)
        /// A chunk-size line: the size so far, its hex digits, and whether an extension (`;…`) has begun.
        case chunkSize(size: Int64, digits: Int, inExtension: Bool)
        /// A chunk's data, this many bytes still to come.
        case chunkData(remaining: Int64)
        /// The line break after a chunk's data.
        case chunkEnd
        /// The trailer section after the last chunk: the length of the line being read; an empty one ends it.
        case trailers(lineLength: Int)
        /// The body is whole.
        case complete
        /// The body ends with the connection (or its framing is beyond what is tracked here): libcurl tells.
        case untracked
    }

    package private(set) var state: State

    /// The framing of a final response with `status` and `headers` to a `method` request.
    package init(status: Int, method: RequestMethod, headers: HTTPHeaderFields) {
        if method == .head || status == 204 || status == 304 {
            state = .complete
        } else if let codings = headers["Transfer-Encoding"] {
            let last = codings.split(separator: ",").last.map { String($0).trimmingWhitespace.lowercased() }
            state = last == "chunked" ? .chunkSize(size: 0, digits: 0, inExtension: false) : .untracked
        } else if let length = headers["Content-Length"].flatMap({ Int64($0.trimmingWhitespace) }),
            length >= 0
        {
            state = length == 0 ? .complete : .length(remaining: length)
        } else {
            state = .untracked
        }
    }

    package var isComplete: Bool { state == .complete }

    /// Follows `bytes` of the body as they arrived; whether the body is now whole.
    package mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            switch state {
            case .complete, .untracked:
                return isComplete
            case .length(let remaining):
                let taken = min(remaining, Int64(bytes.count - index))
                index += Int(taken)
                state = taken == remaining ? .complete : .length(remaining: remaining - taken)
            case .chunkData(let remaining):
                let taken = min(remaining, Int64(bytes.count - index))
                index += Int(taken)
                state = taken == remaining ? .chunkEnd : .chunkData(remaining: remaining - taken)
            case .chunkEnd:
                if bytes[index] == UInt8(ascii: "\n") { state = .chunkSize(size: 0, digits: 0, inExtension: false) }
                index += 1
            case .chunkSize(let size, let digits, let inExtension):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    state = size == 0 ? .trailers(lineLength: 0) : .chunkData(remaining: size)
                } else if inExtension || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: " ")
                    || byte == UInt8(ascii: "\t")
                {
                    continue
                } else if byte == UInt8(ascii: ";") {
                    state = .chunkSize(size: size, digits: digits, inExtension: true)
                } else if let digit = PercentEncoding.hexValue(byte), digits < 15 {
                    state = .chunkSize(size: size << 4 | Int64(digit), digits: digits + 1, inExtension: false)
                } else {
                    // Not a size libcurl would take either: it fails the transfer, and says so.
                    state = .untracked
                }
            case .trailers(let lineLength):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    state = lineLength == 0 ? .complete : .trailers(lineLength: 0)
                } else if byte != UInt8(ascii: "\r") {
                    state = .trailers(lineLength: lineLength + 1)
                }
            }
        }
        return isComplete
    }
}
