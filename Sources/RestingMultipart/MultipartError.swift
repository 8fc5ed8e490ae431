#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What can go wrong while encoding or streaming a `multipart/form-data` body.
public enum MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A ``MultipartFile`` is missing, not a regular file, or cannot be opened.
    case fileUnreadable(URL, reason: String)
    /// A file's length changed between encoding and sending, so the body would no longer match its
    /// announced `Content-Length`.
    case fileChanged(URL, expectedLength: Int64)
    /// A value the encoder cannot turn into parts (a top-level array, a value whose `encode(to:)` threw).
    case invalidValue(reason: String)

    public var description: String {
        switch self {
        case .fileUnreadable(let url, let reason): "cannot read \(url.path): \(reason)"
        case .fileChanged(let url, let length): "\(url.path) is no longer \(length) bytes long"
        case .invalidValue(let reason): "cannot encode as multipart/form-data: \(reason)"
        }
    }
}
