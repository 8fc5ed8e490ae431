#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one body of an ``HTTPDataResponse``: its bytes, when the transport read it whole (the default), or a
/// ``ResponseBodyStream`` still arriving, when the request asked for ``HTTPRequest/responseStreaming``.
///
/// Both read the same way — as a single-pass sequence of chunks, or whole with ``collect(upTo:)`` — so code that
/// does not care which it got does not ask:
///
/// ```swift
/// let bytes = try await response.body.collect(upTo: 1 << 20)
/// for try await chunk in response.body { try file.write(contentsOf: chunk) }
/// ```
///
/// Code that does care (a cache storing bytes, a logger printing them) looks at ``data`` — the bytes of a buffered
/// body, `nil` for a streamed one — or at ``stream``. A streamed body keeps ``ResponseBodyStream``'s rules: it is
/// read once (a second read fails with ``RestingError/bodyAlreadyConsumed``), dropping it unread stops the
/// transfer, and its errors are the ``RestingError``s a buffered call fails with.
///
/// A `101 Switching Protocols` answer to a request that asked for an ``HTTPRequest/upgrade`` has no body at all: its
/// ``upgradedConnection`` is the connection itself (or ``upgradedSession``, the protocol a transport speaks itself,
/// such as a platform's WebSocket), which reads as empty here.
public struct ResponseBody: Sendable, ExpressibleByStringLiteral {
    private enum Storage: Sendable {
        case buffered(Data)
        case streamed(ResponseBodyStream)
        case upgraded(any UpgradedConnection)
        case session(any UpgradedSession)
    }
    private let storage: Storage

    /// No bytes.
    public static let empty = ResponseBody(Data())

    /// A body read whole.
    public init(_ data: Data) { storage = .buffered(data) }

    /// A body that arrives as it is read.
    public init(_ stream: ResponseBodyStream) { storage = .streamed(stream) }

    /// The connection a transport hands over after a `101 Switching Protocols` (``HTTPRequest/upgrade``).
    public init(upgraded connection: any UpgradedConnection) { storage = .upgraded(connection) }

    /// What a transport that speaks the upgraded protocol itself hands over after a `101` (``UpgradedSession``).
    public init(upgradedSession session: any UpgradedSession) { storage = .session(session) }

    /// A body of the UTF-8 bytes of `text`, for stubs and tests: `HTTPDataResponse(status: 200, body: "ok")`.
    public init(stringLiteral text: String) { self.init(Data(text.utf8)) }

    /// The bytes, for a body read whole; `nil` for a streamed one (read it, or ``collect(upTo:)`` it).
    public var data: Data? {
        guard case .buffered(let data) = storage else { return nil }
        return data
    }

    /// The stream, for a streamed body; `nil` for one read whole.
    public var stream: ResponseBodyStream? {
        guard case .streamed(let stream) = storage else { return nil }
        return stream
    }

    /// The connection handed over after a `101 Switching Protocols`; `nil` for every other response.
    public var upgradedConnection: (any UpgradedConnection)? {
        guard case .upgraded(let connection) = storage else { return nil }
        return connection
    }

    /// What a transport that speaks the upgraded protocol itself handed over after a `101`; `nil` for every other
    /// response.
    public var upgradedSession: (any UpgradedSession)? {
        guard case .session(let session) = storage else { return nil }
        return session
    }

    /// Whether the body is known to have no bytes: a buffered one that is empty (a streamed one is not known).
    public var isEmpty: Bool { data?.isEmpty == true }

    /// The whole body in memory: a buffered body's bytes, or a streamed body read to its end; fails with
    /// ``RestingError/responseTooLarge(limit:)`` past `limit` bytes (a streamed body is then cancelled).
    public func collect(upTo limit: Int) async throws -> Data {
        switch storage {
        case .buffered(let data):
            guard data.count <= limit else { throw RestingError.responseTooLarge(limit: Int64(limit)) }
            return data
        case .streamed(let stream):
            return try await stream.collect(upTo: limit)
        case .upgraded, .session:
            return Data()
        }
    }

    /// The body as a ``ResponseBodyStream``: a streamed body's own, or one chunk of a buffered body's bytes.
    public func makeStream() -> ResponseBodyStream {
        switch storage {
        case .buffered(let data): ResponseBodyStream(data)
        case .streamed(let stream): stream
        case .upgraded, .session: ResponseBodyStream(Data())
        }
    }

    /// Stops a streamed body's transfer, or closes an upgraded connection (nothing for a body read whole): what an
    /// interceptor that discards a response does, without waiting for the stream to be dropped.
    public func cancel() {
        switch storage {
        case .buffered: break
        case .streamed(let stream): stream.cancel()
        case .upgraded(let connection): connection.close()
        case .session(let session): session.cancel()
        }
    }
}

extension ResponseBody: AsyncSequence {
    public typealias Element = Data
    public typealias Failure = any Error

    /// Reads the chunks: the one chunk of a buffered body (none when empty), or a streamed body's as they arrive.
    public func makeAsyncIterator() -> ResponseBodyStream.AsyncIterator { makeStream().makeAsyncIterator() }
}
