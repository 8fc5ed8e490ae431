import RestingCore

/// A streamed body held a line, an NDJSON value or a Server-Sent Event larger than its reader's limit: what keeps a
/// server from growing the client's memory without bound. The reader fails with it and reads no further.
///
/// ```swift
/// do {
///     for try await line in stream.lines { print(line) }
/// } catch let tooLarge as StreamElementTooLarge {
///     print("a line past \(tooLarge.limit) bytes")
/// }
/// ```
public struct StreamElementTooLarge: CallFailure, Equatable {
    /// The reader's limit, in bytes.
    public let limit: Int

    /// A failure of a reader limited to `limit` bytes.
    public init(limit: Int) { self.limit = limit }

    /// `streamElementTooLarge`.
    public var errorType: String { "streamElementTooLarge" }

    /// What the limit was.
    public var description: String {
        "a line or event of the streamed response body is larger than the \(limit)-byte limit"
    }
}
