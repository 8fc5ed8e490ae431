/// Media types by file extension, for ``MultipartFile``: a table of our own, so that it works the same on
/// every platform (Apple's `UTType` does not exist on Linux).
public enum MIMEType {
    /// What a part of unknown type is sent as.
    public static let fallback = "application/octet-stream"

    /// The media type for a file extension (`"jpg"`, `"JPG"`, `".jpg"`), or ``fallback``.
    ///
    /// ```swift
    /// MIMEType.forExtension("png") // "image/png"
    /// ```
    public static func forExtension(_ pathExtension: String) -> String {
        let key = pathExtension.hasPrefix(".") ? String(pathExtension.dropFirst()) : pathExtension
        return table[key.lowercased()] ?? fallback
    }

    private static let table: [String: String] = [
        // Images
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg",
        "flac": "audio/flac", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm", "mkv": "video/x-matroska", "avi": "video/x-msvideo",
        // Text and data
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "json": "application/json", "xml": "application/xml", "yaml": "application/yaml",
        "yml": "application/yaml",
        // Documents and archives
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "7z": "application/x-7z-compressed", "rtf": "application/rtf",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "wasm": "application/wasm", "bin": fallback,
    ]
}
