import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A streamed body read as newline-delimited JSON (NDJSON, JSON Lines): one `Value` per line, decoded as soon
/// as its line arrives. Blank lines are skipped; a line that does not decode fails with
/// ``/RestingCore/RestingError/decodingFailed(type:underlying:body:)`` holding that line.
///
/// ```swift
/// let feed = Endpoint<Nothing, JSONLines<Change>>(.get, "/changes", encoding: .query)
/// for try await change in try await client.perform(RestingRequest(endpoint: feed)).value.body {
///     apply(change)
/// }
/// // or from any stream: response.body.jsonLines(of: Change.self)
/// ```
public struct JSONLines<Value: Decodable & Sendable>: AsyncSequence, StreamingResponseBody {
    public typealias Element = Value
    public typealias Failure = any Error

    private let lines: ResponseLines
    private let decoder: JSONDecoder

    /// The values of `stream`'s lines, decoded with `decoder`; a line longer than `maximumLineLength` fails.
    public init(
        _ stream: ResponseBodyStream, decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = ResponseLines.defaultMaximumLineLength
    ) {
        lines = ResponseLines(stream, maximumLineLength: maximumLineLength)
        self.decoder = decoder
    }

    public init(streamedBody: StreamedBody) { self.init(streamedBody.stream, decoder: streamedBody.decoder) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var lines: ResponseLines.AsyncIterator
        fileprivate let decoder: JSONDecoder

        public mutating func next() async throws -> Value? {
            while let line = try await lines.next() {
                guard line.contains(where: { !$0.isWhitespace }) else { continue }
                return try ResponseBodyDecoding.decode(Value.self, from: Data(line.utf8), decoder: decoder)
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder)
    }

    /// Stops the body (see ``/RestingCore/ResponseBodyStream/cancel()``).
    public func cancel() { lines.cancel() }
}

extension ResponseBodyStream {
    /// This body as NDJSON values (see ``JSONLines``).
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type, decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = ResponseLines.defaultMaximumLineLength
    ) -> JSONLines<Value> {
        JSONLines(self, decoder: decoder, maximumLineLength: maximumLineLength)
    }
}
