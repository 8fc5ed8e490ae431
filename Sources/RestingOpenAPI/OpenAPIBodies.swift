#if OpenAPI
import HTTPTypes
import OpenAPIRuntime
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RestingKit's bodies as swift-openapi-runtime's `HTTPBody`, and back, streaming where the body streams.
enum OpenAPIBodies {
    /// The body of `response` for the generated client: `nil` where there can be none (a `HEAD`, a 204 or a 304),
    /// the stream itself where the body streams (read once, with the transport's back-pressure).
    ///
    /// With a `limit`, a body that announces more bytes is refused at once, and one that brings more fails the read
    /// that passes it — either way with ``/RestingCore/RestingError/responseTooLarge(limit:)``, its transfer
    /// cancelled — so that generated code collecting it whole (`upTo: .max`) holds at most `limit` bytes.
    static func httpBody(
        of response: HTTPDataResponse, for method: HTTPTypes.HTTPRequest.Method, limit: Int64? = nil
    ) throws(RestingError) -> HTTPBody? {
        guard method != .head, response.status != 204, response.status != 304 else {
            response.body.stream?.cancel()
            return nil
        }
        let announced = response.headers["Content-Length"].flatMap(Int64.init)
        if let limit, let size = announced ?? response.body.data.map({ Int64($0.count) }), size > limit {
            response.body.stream?.cancel()
            throw .responseTooLarge(limit: limit)
        }
        if let data = response.body.data { return HTTPBody(data) }
        guard let stream = response.body.stream else { return nil }
        let length = announced.map(HTTPBody.Length.known) ?? .unknown
        guard let limit else {
            return HTTPBody(stream.map { ArraySlice($0) }, length: length, iterationBehavior: .single)
        }
        return HTTPBody(LimitedChunks(stream: stream, limit: limit), length: length, iterationBehavior: .single)
    }

    /// A request body as the `HTTPBody` a middleware sees: bytes as they are, a file or a stream read in chunks by a
    /// fresh reader each time it is iterated.
    static func httpBody(of body: RequestBody) -> HTTPBody? {
        switch body.source {
        case .empty:
            return nil
        case .bytes(let data):
            return HTTPBody(data)
        case .file, .stream, .sequence:
            let length = body.contentLength.map(HTTPBody.Length.known) ?? .unknown
            var iteration = IterationBehavior.multiple
            if case .sequence(let sequence) = body.source, sequence.iteration == .single { iteration = .single }
            return HTTPBody(ReaderChunks(body: body), length: length, iterationBehavior: iteration)
        }
    }

    /// An operation's body as a request body: its chunks sent as they are produced, with back-pressure; sent again
    /// from the start when it can be iterated again, else once.
    static func requestBody(_ body: HTTPBody?) -> RequestBody {
        // An empty body stays no body (a GET or HEAD may carry it), as when bodies were collected.
        guard let body, body.length != .known(0) else { return .empty }
        let length: Int64? =
            switch body.length {
            case .known(let length): length
            case .unknown: nil
            }
        return .sequence(
            body, contentLength: length, iteration: body.iterationBehavior == .multiple ? .multiple : .single)
    }

    /// The body a middleware handed on: the request's own when it is the one it was given, else its chunks.
    static func requestBody(_ body: HTTPBody?, given: HTTPBody?, original: RequestBody) -> RequestBody {
        if let body, body === given { return original }
        return requestBody(body)
    }

    /// The body a middleware answered with: the response's own when it is the one it was given, else a stream of
    /// its chunks.
    static func responseBody(_ body: HTTPBody?, given: HTTPBody?, original: ResponseBody) -> ResponseBody {
        guard let body else { return .empty }
        if body === given { return original }
        return ResponseBody(ResponseBodyStream(body.map { Data($0) }))
    }
}

/// A streamed response body's chunks, failing with ``/RestingCore/RestingError/responseTooLarge(limit:)`` — and
/// cancelling the transfer — as soon as more than `limit` bytes have come.
private struct LimitedChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let stream: ResponseBodyStream
    let limit: Int64

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: ResponseBodyStream.AsyncIterator
        let stream: ResponseBodyStream
        let limit: Int64
        var received: Int64 = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await chunks.next() else { return nil }
            received += Int64(chunk.count)
            guard received <= limit else {
                stream.cancel()
                throw RestingError.responseTooLarge(limit: limit)
            }
            return ArraySlice(chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: stream.makeAsyncIterator(), stream: stream, limit: limit)
    }
}

/// A file or stream body's chunks, from a new reader for each iteration.
private struct ReaderChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let body: RequestBody

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: (any RequestBodyReader)?
        let failure: RestingError?

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let failure { throw failure }
            guard let reader else { return nil }
            // An async sequence's reader would block a thread of the cooperative pool its producer needs.
            if let sequence = reader as? SequenceBodyReader {
                return try await sequence.next(upTo: 64 * 1024).map { ArraySlice($0) }
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
            guard count > 0 else {
                reader.close()
                return nil
            }
            return chunk[..<count]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        do {
            return AsyncIterator(reader: try body.makeReader(), failure: nil)
        } catch {
            return AsyncIterator(reader: nil, failure: error)
        }
    }
}
#endif
