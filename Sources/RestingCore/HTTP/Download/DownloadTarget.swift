#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a transport writes a response body instead of memory: set on ``HTTPRequest/downloadTarget`` by
/// ``RestingClient/download(_:to:resume:maximumSize:)``, honoured by every transport (RestingTransportKit's
/// `DownloadFileWriter` writes it).
///
/// Only a successful (2xx) body goes to the file; any other response is kept in memory as usual, so an
/// error page never ends up in the user's file.
public struct DownloadTarget: Sendable, Equatable {
    /// The file that receives the body: the partial file, moved into place by the client on success.
    public var file: URL
    /// Bytes of `file` already downloaded and kept; the body is expected to continue from here (a `206`
    /// whose `Content-Range` starts at `offset`). 0 starts the file over.
    public var offset: Int64
    /// The `ETag` (or else `Last-Modified`) of the response that produced the first `offset` bytes: a
    /// response with another one is a different file.
    public var validator: String?
    /// The largest the whole file (kept bytes included) may grow; past it the download fails with
    /// ``RestingError/responseTooLarge(limit:)`` and the partial file is removed, so that a server — or a
    /// small compressed body that decodes to terabytes — cannot fill the disk.
    public var maximumSize: Int64

    /// Files of up to 16 GiB by default.
    public static let defaultMaximumSize: Int64 = 16 * 1024 * 1024 * 1024

    /// A download into `file`, resumed from `offset` when it is not 0 and `validator` still matches.
    public init(
        file: URL, offset: Int64 = 0, validator: String? = nil, maximumSize: Int64 = DownloadTarget.defaultMaximumSize
    ) {
        self.file = file
        self.offset = offset
        self.validator = validator
        self.maximumSize = maximumSize
    }

    /// Where the validator of a partial file is kept between attempts: next to it, as `<file>.resume`.
    public var recordFile: URL { file.appendingPathExtension("resume") }
}

/// What is remembered about a partial download, in its ``DownloadTarget/recordFile``.
struct PartialDownloadRecord: Codable, Equatable {
    var validator: String

    /// The validator a response carries: its strong `ETag`, else its `Last-Modified`. A weak ETag (`W/"…"`)
    /// cannot vouch for byte ranges.
    static func validator(of headers: HTTPHeaderFields) -> String? {
        if let tag = headers["ETag"], !tag.hasPrefix("W/") { return tag }
        return headers["Last-Modified"]
    }
}
