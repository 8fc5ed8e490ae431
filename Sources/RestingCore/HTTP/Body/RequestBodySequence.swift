#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An upload produced while it is sent: the chunks of an `AsyncSequence`, read with back-pressure — the sequence is
/// asked for its next chunk only when fewer than ``bufferLimit`` bytes wait to be sent, so a producer faster than the
/// network is slowed to it and never buffered whole, and a slower one pauses the transfer instead of blocking it.
///
/// ```swift
/// let frames = camera.encodedFrames            // some AsyncSequence<Data, any Error> & Sendable
/// request.body = .sequence(frames)             // single-pass: sent once, chunked
/// request.body = .sequence(chunks, contentLength: size, iteration: .multiple)  // iterable again: resent on retry
/// ```
///
/// A `.single` sequence is iterated at most once. A retry, an authentication refresh or a 307/308 redirect that
/// would send it again after it began fails with ``RestingError/requestBodyNotReplayable`` rather than sending a half
/// or empty body; a `.multiple` sequence is iterated afresh from its start for every attempt.
public struct RequestBodySequence: Sendable {
    /// Whether the sequence can be iterated more than once (the same meaning as swift-openapi-runtime's
    /// `HTTPBody.IterationBehavior`).
    public enum Iteration: Sendable {
        /// It can be iterated once: the body is sent by one attempt only.
        case single
        /// Each iteration starts from the first chunk again: the body can be resent.
        case multiple
    }

    /// The exact number of bytes the sequence yields, sent as `Content-Length`; `nil` sends the body chunked. A
    /// sequence that yields more or fewer bytes fails the call with ``RestingError/bodyUnreadable(reason:)``.
    public let contentLength: Int64?
    /// Whether the sequence can be iterated again.
    public let iteration: Iteration
    /// The fields sent after the body (a chunked body's trailer section, HTTP/2's trailing headers), asked for once
    /// the sequence has ended — so that they can carry what only the whole body tells, a checksum or a signature.
    /// A body with trailers is sent chunked, whatever its ``contentLength``. Fields that frame, route, authenticate
    /// or describe the message (RFC 9110 §6.5.1: `Content-Length`, `Host`, `Authorization`, `Content-Type`, …) are
    /// refused with ``RestingError/invalidHeader(name:reason:)``.
    public private(set) var trailers: (@Sendable () -> HTTPHeaderFields)?
    /// How many bytes may wait between the sequence and the transport before the sequence is asked for no more.
    public static var bufferLimit: Int { 256 * 1024 }

    /// Iterates the sequence once, handing each chunk to `deliver`, which returns false when the reader has gone.
    let produce: @Sendable (_ deliver: @Sendable (Data) async -> Bool) async throws -> Void
    private let passes: Locked<Bool>

    /// The chunks of `chunks`, any `DataProtocol` (`Data`, `[UInt8]`, `ArraySlice<UInt8>`, …).
    public init<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, contentLength: Int64? = nil, iteration: Iteration = .single,
        trailers: (@Sendable () -> HTTPHeaderFields)? = nil
    ) where Chunks.Element: DataProtocol {
        self.contentLength = trailers == nil ? contentLength : nil
        self.iteration = iteration
        self.trailers = trailers
        passes = Locked(false)
        produce = { deliver in
            for try await chunk in chunks {
                guard await deliver(chunk as? Data ?? Data(chunk)) else { return }
            }
        }
    }

    /// This sequence — the same chunks, the same passes — with its trailers passed through `transform`.
    func mappingTrailers(_ transform: @escaping @Sendable (HTTPHeaderFields) -> HTTPHeaderFields) -> Self {
        var mapped = self
        if let make = trailers {
            mapped.trailers = { @Sendable in transform(make()) }
        }
        return mapped
    }

    /// Whether an attempt may still read the body: always for a `.multiple` sequence, and until the first attempt
    /// began iterating for a `.single` one.
    var canBeSent: Bool { iteration == .multiple || !passes.withLock { $0 } }

    /// Marks the start of an iteration; false when a `.single` sequence was already iterated.
    func beginPass() -> Bool {
        guard iteration == .single else { return true }
        return passes.withLock { began in
            defer { began = true }
            return !began
        }
    }
}

extension RequestBody {
    /// The chunks of an `AsyncSequence`, sent as they are produced with back-pressure on every transport; see
    /// ``RequestBodySequence``.
    ///
    /// ```swift
    /// let upload = Endpoint<RequestBody, Nothing>(.put, "/upload/{{name}}", encoding: .raw(contentType: "video/mp4"))
    /// try await client.send(RestingRequest(endpoint: upload, body: .sequence(recorder.chunks), pathVariables: …))
    /// ```
    public static func sequence<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, contentLength: Int64? = nil, iteration: RequestBodySequence.Iteration = .single,
        trailers: (@Sendable () -> HTTPHeaderFields)? = nil
    ) -> RequestBody where Chunks.Element: DataProtocol {
        RequestBody(
            .sequence(
                RequestBodySequence(chunks, contentLength: contentLength, iteration: iteration, trailers: trailers)))
    }

    /// The trailers to send after this body, when it is a sequence that has them (asked for once it has ended).
    package var trailers: (@Sendable () -> HTTPHeaderFields)? {
        if case .sequence(let sequence) = source { sequence.trailers } else { nil }
    }

    /// This body with its trailers, if it has any, passed through `transform` once they are asked for.
    package func mappingTrailers(_ transform: @escaping @Sendable (HTTPHeaderFields) -> HTTPHeaderFields) -> Self {
        guard case .sequence(let sequence) = source, sequence.trailers != nil else { return self }
        return RequestBody(.sequence(sequence.mappingTrailers(transform)))
    }
}
