import RestingCore

/// Where a transfer's request body comes from, and how much of it libcurl has taken: each case carries its reader.
enum UploadSource {
    /// No body, or none any more (the request has been released, or a rewind could not make a new reader).
    case none
    /// A reader libcurl's read callback may block on: bytes in memory, a file, a stream.
    case blocking(any RequestBodyReader, bytesRead: Int64)
    /// An async sequence's reader, polled without blocking; paused while libcurl waits for its producer.
    case sequence(SequenceBodyReader, bytesRead: Int64, isPaused: Bool)

    /// A source reading through `reader`, nothing read yet.
    init(_ reader: any RequestBodyReader) {
        if let sequence = reader as? SequenceBodyReader {
            self = .sequence(sequence, bytesRead: 0, isPaused: false)
        } else {
            self = .blocking(reader, bytesRead: 0)
        }
    }

    /// Body bytes handed to libcurl since the reader was made: a rewind before the first is no rewind at all.
    var bytesRead: Int64 {
        switch self {
        case .none: 0
        case .blocking(_, let bytesRead), .sequence(_, let bytesRead, _): bytesRead
        }
    }

    /// Whether the body is produced while it is sent: it may outlast the response.
    var isSequence: Bool {
        if case .sequence = self { true } else { false }
    }

    /// Whether the upload waits for the sequence's producer (the read callback answered `CURL_READFUNC_PAUSE`).
    var isPaused: Bool {
        if case .sequence(_, _, true) = self { true } else { false }
    }

    /// Marks the upload as no longer waiting for its producer; whether it was.
    mutating func resume() -> Bool {
        guard case .sequence(let reader, let bytesRead, true) = self else { return false }
        self = .sequence(reader, bytesRead: bytesRead, isPaused: false)
        return true
    }

    /// Closes the reader, and leaves no source.
    mutating func close() {
        switch self {
        case .none: break
        case .blocking(let reader, _): reader.close()
        case .sequence(let reader, _, _): reader.close()
        }
        self = .none
    }
}
