import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The body of an ``HTTPRequest``: nothing, bytes in memory, a file on disk, or a stream made on demand.
///
/// Every body can be read again from the start — ``makeReader()`` returns a fresh reader each time — so an
/// interceptor can retry any request, uploads included. Transports read it in chunks through
/// ``RequestBodyReader`` and never need it whole in memory.
///
/// ```swift
/// request.body = .bytes(Data("hello".utf8))
/// request.body = .file(URL(fileURLWithPath: "/tmp/photo.jpg"))
/// ```
public struct RequestBody: Sendable {
    /// Where the bytes come from.
    public enum Source: Sendable {
        /// No body.
        case empty
        /// Bytes in memory, sent with a `Content-Length`.
        case bytes(Data)
        /// A file on disk, streamed from it and never read whole into memory.
        case file(URL)
        /// A producer of readers; called once per attempt. `contentLength` is `nil` when unknown.
        case stream(contentLength: Int64?, makeReader: @Sendable () throws -> any RequestBodyReader)
    }

    /// Where the body's bytes come from.
    public var source: Source

    /// A body read from `source`.
    public init(_ source: Source) { self.source = source }

    /// No body at all.
    public static let empty = RequestBody(.empty)
    /// The bytes of `data`.
    public static func bytes(_ data: Data) -> RequestBody { RequestBody(.bytes(data)) }
    /// The contents of the file at `url`, streamed from disk.
    public static func file(_ url: URL) -> RequestBody { RequestBody(.file(url)) }
    /// Bytes made on demand by a fresh reader for each attempt (a retry or a redirect reads it again).
    public static func stream(
        contentLength: Int64?, makeReader: @escaping @Sendable () throws -> any RequestBodyReader
    ) -> RequestBody {
        RequestBody(.stream(contentLength: contentLength, makeReader: makeReader))
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool {
        switch source {
        case .empty: true
        case .bytes(let data): data.isEmpty
        case .file, .stream: false
        }
    }

    /// The exact length in bytes when known without reading (a file's length is read from the file system).
    public var contentLength: Int64? {
        switch source {
        case .empty: 0
        case .bytes(let data): Int64(data.count)
        case .file(let url): FileIO.size(of: url)
        case .stream(let length, _): length
        }
    }

    /// A reader positioned at the first byte. Throws ``RestingError/bodyUnreadable(reason:)`` when the file
    /// cannot be opened or the stream cannot be made.
    public func makeReader() throws(RestingError) -> any RequestBodyReader {
        switch source {
        case .empty: return DataBodyReader(Data())
        case .bytes(let data): return DataBodyReader(data)
        case .file(let url): return try FileBodyReader(url: url)
        case .stream(_, let makeReader):
            do {
                return try makeReader()
            } catch let error as RestingError {
                throw error
            } catch {
                throw .bodyUnreadable(reason: "the body stream could not be opened: \(error)")
            }
        }
    }

    /// Reads the whole body into memory, failing past `limit` bytes. For transports that can only send
    /// in-memory bodies; avoid for large uploads.
    public func collect(upTo limit: Int = .max) throws(RestingError) -> Data {
        if case .bytes(let data) = source, data.count <= limit { return data }
        let reader = try makeReader()
        defer { reader.close() }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var data = Data()
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { return data }
            guard data.count + count <= limit else {
                throw .bodyUnreadable(reason: "the body is larger than the \(limit)-byte limit")
            }
            data.append(contentsOf: chunk[0..<count])
        }
    }
}
