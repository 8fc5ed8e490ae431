#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `multipart/form-data` body as a list of parts, with its exact length known before a byte is read.
///
/// Made by ``MultipartFormDataEncoder`` (or by hand from parts). In-memory parts are held as bytes; file
/// parts only as a location and a length, so a body of any size costs a few hundred bytes until it is read
/// with ``makeReader()`` — which opens each file only when it reaches it. Every reader starts from the first
/// byte, so the body can be sent again (a retry) as often as needed.
///
/// ```swift
/// let form = try MultipartFormDataEncoder().encode(upload)
/// request.headers["Content-Type"] = form.contentType
/// print(form.contentLength)              // exact, files included
/// try form.write(to: bodyFileURL)        // or stream it: form.makeReader()
/// ```
public struct MultipartFormData: Sendable {
    /// One part: a named field with its content.
    public struct Part: Sendable, Equatable {
        /// Where a part's bytes come from.
        public enum Content: Sendable, Equatable {
            /// Bytes in memory.
            case bytes(Data)
            /// A file of `length` bytes, read when the body is streamed.
            case file(URL, length: Int64)
        }

        /// The form field's name.
        public var name: String
        /// Present for file parts: the `filename` of the `Content-Disposition`.
        public var filename: String?
        /// The part's `Content-Type`; `nil` sends none (plain text fields).
        public var contentType: String?
        /// The part's bytes, or the file they come from.
        public var content: Content

        /// A part for the field `name`, with a `filename` for file parts.
        public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }

        /// A text field.
        public static func text(_ name: String, _ value: String) -> Part {
            Part(name: name, content: .bytes(Data(value.utf8)))
        }

        /// A part for `file`, whose length is read from the file system (which also checks it can be opened).
        public static func file(_ name: String, _ file: MultipartFile) throws(MultipartError) -> Part {
            Part(
                name: name, filename: file.filename, contentType: file.mimeType,
                content: .file(file.url, length: try FileStatus.readableLength(of: file.url)))
        }
    }

    /// The delimiter between parts: random, and absent from every in-memory part.
    public let boundary: String
    /// The parts, in the order they are sent.
    public let parts: [Part]
    /// The exact number of bytes ``makeReader()`` produces.
    public let contentLength: Int64
    /// The body's media type, with its boundary: the request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    let segments: [Segment]

    /// A body of `parts` in their order. Throws when a name, filename or content type holds a CR or LF, which
    /// would let a value forge part headers.
    public init(parts: [Part]) throws(MultipartError) {
        try self.init(parts: parts, makeBoundary: Self.randomBoundary)
    }

    init(parts: [Part], makeBoundary: () -> String) throws(MultipartError) {
        for part in parts {
            for text in [part.name, part.filename, part.contentType].compactMap({ $0 })
            where text.contains(where: \.isNewline) {
                throw .invalidValue(reason: "a part header value contains a line break: \(text.debugDescription)")
            }
        }
        var boundary = makeBoundary()
        while parts.contains(where: { $0.contains(boundary) }) { boundary = makeBoundary() }
        self.boundary = boundary
        self.parts = parts
        segments = Self.segments(parts, boundary: boundary)
        contentLength = segments.reduce(0) { $0 + $1.length }
    }

    /// A reader positioned at the first byte of the body.
    public func makeReader() -> MultipartBodyReader { MultipartBodyReader(segments: segments) }

    /// Writes the whole body to `url` (replacing what is there), streaming: one buffer in memory at a time.
    public func write(to url: URL) throws(MultipartError) {
        guard let output = FileIO.openForWriting(url, truncate: true) else {
            throw .fileUnreadable(url, reason: FileIO.lastError)
        }
        defer { FileIO.close(output) }
        let reader = makeReader()
        defer { reader.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
        defer { buffer.deallocate() }
        while case let count = try reader.read(into: buffer), count > 0 {
            guard FileIO.write(output, UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else {
                throw .fileUnreadable(url, reason: FileIO.lastError)
            }
        }
    }

    // MARK: Layout

    /// A stretch of the body: bytes in memory or a whole file.
    enum Segment: Sendable {
        case bytes(Data)
        case file(URL, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, let length): length
            }
        }
    }

    /// `--boundary`, the part's headers, a blank line, the content and CRLF, for each part; then `--boundary--`.
    static func segments(_ parts: [Part], boundary: String) -> [Segment] {
        var segments: [Segment] = []
        var pending = Data()
        for part in parts {
            pending.append(contentsOf: "--\(boundary)\r\n".utf8)
            pending.append(contentsOf: part.headerBlock.utf8)
            switch part.content {
            case .bytes(let data):
                pending.append(data)
            case .file(let url, let length):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(url, length: length))
            }
            pending.append(contentsOf: "\r\n".utf8)
        }
        pending.append(contentsOf: "--\(boundary)--\r\n".utf8)
        segments.append(.bytes(pending))
        return segments
    }

    /// 30 random letters and digits after a fixed prefix: 178 bits, far from any real content.
    static func randomBoundary() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return "RestingKit-" + String((0..<30).map { _ in alphabet.randomElement(using: &generator) ?? "x" })
    }
}

extension MultipartFormData.Part {
    /// `Content-Disposition` (and `Content-Type`) lines and the blank line that ends them. Quotes in names
    /// are percent-encoded, as browsers do (WHATWG HTML, multipart/form-data encoding).
    var headerBlock: String {
        var block = "Content-Disposition: form-data; name=\"\(Self.quoted(name))\""
        if let filename { block += "; filename=\"\(Self.quoted(filename))\"" }
        block += "\r\n"
        if let contentType { block += "Content-Type: \(contentType)\r\n" }
        return block + "\r\n"
    }

    private static func quoted(_ text: String) -> String {
        text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "%22")
    }

    func contains(_ boundary: String) -> Bool {
        if headerBlock.contains(boundary) { return true }
        guard case .bytes(let data) = content else { return false }
        return data.firstRange(of: Data(boundary.utf8)) != nil
    }
}

/// Checks on a file before it becomes a part.
enum FileStatus {
    /// The length of the regular file at `url`, after opening it to prove it can be read.
    static func readableLength(of url: URL) throws(MultipartError) -> Int64 {
        guard let descriptor = FileIO.openForReading(url) else { throw .fileUnreadable(url, reason: FileIO.lastError) }
        defer { FileIO.close(descriptor) }
        guard let status = FileIO.status(descriptor) else { throw .fileUnreadable(url, reason: FileIO.lastError) }
        guard status.isRegularFile else { throw .fileUnreadable(url, reason: "not a regular file") }
        return status.length
    }
}
