import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The body of an ``HTTPRequest``: nothing, bytes in memory, a file on disk, a stream made on demand, or the chunks
/// of an async sequence.
///
/// A body can be read again from the start — ``makeReader()`` returns a fresh reader each time — so an interceptor can
/// retry a request, uploads included; only a single-pass ``RequestBodySequence`` cannot be sent twice. Transports read
/// it in chunks through ``RequestBodyReader`` and never need it whole in memory.
///
/// ```swift
/// request.body = .bytes(Data("hello".utf8))
/// request.body = .file(URL(fileURLWithPath: "/tmp/photo.jpg"))
/// request.body = .sequence(encoder.chunks)
/// ```
///
/// A `.raw` endpoint takes a `RequestBody` as its request value and sends it as it is:
/// `Endpoint<RequestBody, Nothing>(.put, "/upload/{{name}}", encoding: .raw(contentType: "application/octet-stream"))`.
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
        /// The chunks of an async sequence, read as they are produced.
        case sequence(RequestBodySequence)
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
        case .file, .stream, .sequence: false
        }
    }

    /// Whether the body is an async sequence that can be iterated once: it cannot be sent twice, so nothing may
    /// hash it ahead, resend it or send it in parallel.
    package var isSinglePass: Bool {
        if case .sequence(let sequence) = source { sequence.iteration == .single } else { false }
    }

    /// The exact length in bytes when known without reading (a file's length is read from the file system).
    public var contentLength: Int64? {
        switch source {
        case .empty: 0
        case .bytes(let data): Int64(data.count)
        case .file(let url): FileIO.size(of: url)
        case .stream(let length, _): length
        case .sequence(let sequence): sequence.contentLength
        }
    }

    /// A reader positioned at the first byte. Throws ``RestingError/bodyUnreadable(reason:)`` when the file
    /// cannot be opened or the stream cannot be made, and ``RestingError/requestBodyNotReplayable`` when a
    /// single-pass sequence has already been read.
    ///
    /// An async sequence's reader blocks in ``RequestBodyReader/read(into:)`` until its producer has bytes: read it
    /// from a thread of your own, never from Swift's cooperative pool, or use ``collect(upTo:)``.
    public func makeReader() throws(RestingError) -> any RequestBodyReader {
        switch source {
        case .sequence(let sequence): return try SequenceBodyReader(sequence)
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

    /// Reads the whole body into memory, failing past `limit` bytes. For transports that can only send in-memory
    /// bodies, and for tests; avoid for large uploads. A single-pass sequence is spent by it.
    public func collect(upTo limit: Int = .max) async throws(RestingError) -> Data {
        guard case .sequence(let sequence) = source else { return try collectSynchronously(upTo: limit) }
        let reader = try SequenceBodyReader(sequence)
        defer { reader.close() }
        var data = Data()
        while let chunk = try await reader.next(upTo: 64 * 1024) {
            guard data.count + chunk.count <= limit else { throw Self.tooLarge(limit) }
            data.append(chunk)
        }
        return data
    }

    /// ``collect(upTo:)`` for synchronous code; an async sequence's body is refused rather than waited for.
    package func collectSynchronously(upTo limit: Int = .max) throws(RestingError) -> Data {
        if case .bytes(let data) = source, data.count <= limit { return data }
        if case .sequence = source {
            throw .bodyUnreadable(reason: "an async sequence's body is collected with `await collect(upTo:)`")
        }
        let reader = try makeReader()
        defer { reader.close() }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var data = Data()
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { return data }
            guard data.count + count <= limit else { throw Self.tooLarge(limit) }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    private static func tooLarge(_ limit: Int) -> RestingError {
        .bodyUnreadable(reason: "the body is larger than the \(limit)-byte limit")
    }
}

extension RequestBody: Encodable {
    /// A body is sent as it is by a `.raw` endpoint (``RequestEncoding/raw(contentType:)``); every other encoding refuses it
    /// with ``RestingError/encodingFailed(reason:)``.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, .init(codingPath: encoder.codingPath, debugDescription: "a RequestBody is sent by a .raw endpoint"))
    }
}
