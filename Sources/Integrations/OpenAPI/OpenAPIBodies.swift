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
    static func httpBody(of response: HTTPDataResponse, for method: HTTPTypes.HTTPRequest.Method) -> HTTPBody? {
        guard method != .head, response.status != 204, response.status != 304 else {
            response.body.stream?.cancel()
            return nil
        }
        if let data = response.body.data { return HTTPBody(data) }
        guard let stream = response.body.stream else { return nil }
        let length = response.headers["Content-Length"].flatMap(Int64.init).map(HTTPBody.Length.known) ?? .unknown
        return HTTPBody(stream.map { ArraySlice($0) }, length: length, iterationBehavior: .single)
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
