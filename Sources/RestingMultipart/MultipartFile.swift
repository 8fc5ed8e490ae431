#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file to send as one part of a `multipart/form-data` body, streamed from disk when the body is sent.
///
/// Put it in the model you send to a `.multipartFormData` endpoint:
///
/// ```swift
/// struct PhotoUpload: Encodable {
///     let caption: String
///     let file: MultipartFile
/// }
/// let upload = PhotoUpload(caption: "Sunset", file: MultipartFile(url: photoURL))
/// ```
///
/// The part's filename is the file's name and its type comes from the extension (``MIMEType``) unless you
/// override them. The file is checked when the body is encoded: a missing or unreadable file fails then,
/// with ``MultipartError/fileUnreadable(_:reason:)``. It is `Codable` as its location and names, so a
/// request holding one can be stored and sent later (the file itself is not copied).
public struct MultipartFile: Codable, Sendable, Hashable {
    /// The file on disk; it is read while the body is sent, never whole.
    public var url: URL
    /// The `filename` in the part's `Content-Disposition`.
    public var filename: String
    /// The part's `Content-Type`.
    public var mimeType: String

    /// The file at `url`, sent as `filename` (its own name by default) with `mimeType` (guessed from its extension by
    /// default).
    public init(url: URL, filename: String? = nil, mimeType: String? = nil) {
        self.url = url
        self.filename = filename ?? url.lastPathComponent
        self.mimeType = mimeType ?? MIMEType.forExtension(url.pathExtension)
    }
}
