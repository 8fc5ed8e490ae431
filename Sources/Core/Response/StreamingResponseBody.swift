#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response type read as a stream: an endpoint declaring one makes ``RestingClient/perform(_:)`` return as
/// soon as the response head has arrived, with the body still flowing.
///
/// RestingKit ships ``ResponseBodyStream`` (chunks of bytes), ``ResponseLines`` (text lines), ``JSONLines``
/// (NDJSON values) and ``ServerSentEvents``:
///
/// ```swift
/// let changes = Endpoint<Nothing, JSONLines<Change>>(.get, "/changes", encoding: .query)
/// for try await change in try await client.perform(RestingRequest(endpoint: changes)).value.body {
///     apply(change)
/// }
/// ```
///
/// The call's promise resolves with the head (status, headers) once the interceptors have judged it; a status
/// the client does not accept fails it with ``RestingError/httpError(_:)`` holding the start of the body.
/// These types conform to `Decodable` only so that an ``Endpoint`` accepts them: decoding one from a buffered
/// body fails.
public protocol StreamingResponseBody: Decodable, Sendable {
    /// Wraps the body of an accepted response.
    init(streamedBody: StreamedBody)
}

extension StreamingResponseBody {
    /// Always fails: a stream is read by ``RestingClient/perform(_:)``, never decoded from a whole body.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            Self.self,
            .init(
                codingPath: decoder.codingPath,
                debugDescription: "\(Self.self) is a streamed response: read it with RestingClient.perform"))
    }
}

/// What a ``StreamingResponseBody`` is made from: the body's chunks, the client's decoder, and a way to send
/// the same call again (what ``ServerSentEvents/reconnecting(_:)`` uses).
public struct StreamedBody: Sendable {
    /// The body as it arrives.
    public let stream: ResponseBodyStream
    /// The client's (or the endpoint's) JSON decoder.
    public let decoder: JSONDecoder
    /// Sends the call again through the whole pipeline with extra headers, answering with the new body (or
    /// `nil` when the server answered 204: nothing more to read).
    let reopen: (@Sendable (_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?)?

    /// A body that cannot be reopened: what tests and custom types start from.
    public init(stream: ResponseBodyStream, decoder: JSONDecoder = JSONDecoder()) {
        self.init(stream: stream, decoder: decoder, reopen: nil)
    }

    init(
        stream: ResponseBodyStream, decoder: JSONDecoder,
        reopen: (@Sendable (_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?)?
    ) {
        self.stream = stream
        self.decoder = decoder
        self.reopen = reopen
    }
}

extension ResponseBodyStream: StreamingResponseBody {
    public convenience init(streamedBody: StreamedBody) {
        self.init(wrapping: streamedBody.stream)
    }
}
