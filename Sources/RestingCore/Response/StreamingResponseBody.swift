#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response type read as a stream: an endpoint declaring one makes ``RestingClient/perform(_:)`` return as
/// soon as the response head has arrived, with the body still flowing.
///
/// RestingKit ships ``ResponseBodyStream`` (chunks of bytes), `ResponseLines` (text lines), `JSONLines`
/// (NDJSON values) and `ServerSentEvents`:
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
/// the same call again (what `ServerSentEvents.reconnecting(_:)` uses).
public struct StreamedBody: Sendable {
    /// The body as it arrives.
    public let stream: ResponseBodyStream
    /// The client's (or the endpoint's) JSON decoder.
    public let decoder: JSONDecoder
    /// Sends the call again, and keeps it within reach of cancellation between sends.
    package let reconnector: (any StreamReconnector)?

    /// A body that cannot be reopened: what tests and custom types start from.
    public init(stream: ResponseBodyStream, decoder: JSONDecoder = JSONDecoder()) {
        self.init(stream: stream, decoder: decoder, reconnector: nil)
    }

    init(stream: ResponseBodyStream, decoder: JSONDecoder, reconnector: (any StreamReconnector)?) {
        self.stream = stream
        self.decoder = decoder
        self.reconnector = reconnector
    }
}

/// How a streamed call is made again (`ServerSentEvents.reconnecting(_:)`): the call's own client, base URL,
/// request and concurrency limit, and its cancellation — `cancel()` and `cancelAll()` reach the call in the
/// waits between its streams too, not only while one is open.
package protocol StreamReconnector: Sendable {
    /// A reader that reconnects exists: the call stays registered (cancellable) between its streams, until
    /// ``finish()``.
    func holdOpen()
    /// Waits `delay` before a reconnection; throws ``RestingError/cancelled`` at once when the call is cancelled.
    func wait(_ delay: Duration) async throws
    /// Sends the call again with `headers` added, answering with the new body, or `nil` when the server answered
    /// 204 (nothing more to read).
    func reopen(_ headers: [(name: String, value: String)]) async throws -> ResponseBodyStream?
    /// The reader is done: the call is over — failed with `failure` when the reader failed of its own accord (an event
    /// past its limit), else as its last stream ended.
    func finish(failing failure: (any Error)?)
    /// Cancels the call: the stream being read, a wait, any reconnection to come.
    func cancel()
}

extension ResponseBodyStream: StreamingResponseBody {
    public convenience init(streamedBody: StreamedBody) {
        self.init(wrapping: streamedBody.stream)
    }
}
