/// Why a download could not continue from its partial file.
public enum ResumeRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The server answered the range request with the whole body (no range support).
    case rangeIgnored(status: Int)
    /// The server's `ETag`/`Last-Modified` differs from the partial file's: the remote file changed.
    case fileChanged
    /// A `206` whose `Content-Range` does not continue at the partial file's end.
    case rangeMismatch(expectedStart: Int64, contentRange: String)

    public var description: String {
        switch self {
        case .rangeIgnored(let status): "the server ignored the range and answered \(status) with the whole file"
        case .fileChanged: "the remote file changed since the partial download"
        case .rangeMismatch(let start, let range): "asked for bytes from \(start), got Content-Range '\(range)'"
        }
    }
}
