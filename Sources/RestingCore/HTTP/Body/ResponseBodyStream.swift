#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response body that arrives while it is read: a single-pass `AsyncSequence` of byte chunks, with
/// back-pressure, cancellation and typed errors.
///
/// ```swift
/// let export = Endpoint<Nothing, ResponseBodyStream>(.get, "/export", encoding: .query)
/// let response = try await client.perform(RestingRequest(endpoint: export)).value
/// for try await chunk in response.body {
///     try file.write(contentsOf: chunk)
/// }
/// ```
///
/// - **Back-pressure.** A reader that stops reading stops the transfer once ``ResponseStreaming/bufferSize``
///   bytes wait unread; reading again resumes it.
/// - **Cancellation.** Leaving the loop early, cancelling the reading task, or dropping the stream unread ends
///   the transfer (and closes its connection, which can no longer be reused for another request).
/// - **Errors** that cut the body (a reset, a truncated chunked body, an idle timeout between chunks) are
///   thrown from the loop as the same ``RestingError``s a buffered call fails with.
/// - **Single pass.** A second iteration fails with ``RestingError/bodyAlreadyConsumed``, never hangs.
///
/// `lines`, `jsonLines(of:decoder:maximumLineLength:)` and `serverSentEvents` (module `RestingStreaming`) read the same
/// chunks as text lines, NDJSON values and Server-Sent Events.
public final class ResponseBodyStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error

    private let source: Source
    /// Under one lock, as an open stream's memory counts: whether the body has been iterated, and what is called
    /// once when it ends, fails, is cancelled or is dropped — how a call knows its stream is over.
    private let state = Locked<(isIterated: Bool, termination: (@Sendable ((any Error)?) -> Void)?)>((false, nil))

    private enum Source: Sendable {
        /// Fed by a transport (RestingTransportKit's `ResponseBodyFeed`).
        case buffer(StreamBuffer)
        /// Read from another sequence (a stub's chunks, a wrapped stream); `cancel` stops what it wraps, `trailers`
        /// reads its trailers; `wrapped` is the stream it reads, if it reads one, which its reader's failure ends.
        case sequence(
            @Sendable () -> ChunkReader, cancel: (@Sendable () -> Void)?,
            trailers: (@Sendable () -> HTTPHeaderFields?)? = nil, wrapped: ResponseBodyStream? = nil)
    }

    private init(source: Source) { self.source = source }

    /// A body of one chunk, already whole in memory (empty data gives an empty body).
    public convenience init(_ data: Data) {
        self.init(chunks: data.isEmpty ? [] : [data])
    }

    /// A body made of `chunks`, read in order: what stubs, mocks and tests answer with.
    public convenience init(chunks: [Data]) {
        self.init(
            source: .sequence(
                {
                    var remaining = chunks[...]
                    return ChunkReader(next: { remaining.popFirst() }, cancel: {})
                }, cancel: nil))
    }

    /// A body read from `sequence` by a task of its own, at most `bufferSize` bytes ahead of the reader; its
    /// errors reach the reader (a ``RestingError`` as it is, any other as ``TransportError/Kind/other``), and
    /// cancelling the stream cancels that task.
    ///
    /// ```swift
    /// let ticks = ResponseBodyStream(AsyncThrowingStream { continuation in … })
    /// ```
    public convenience init<Chunks: AsyncSequence & Sendable>(
        _ sequence: Chunks, bufferSize: Int = ResponseStreaming.defaultBufferSize
    ) where Chunks.Element == Data {
        let (resumes, resume) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let pump = Locked<Task<Void, Never>?>(nil)
        let buffer = StreamBuffer(
            limit: bufferSize, onResume: { resume.yield() },
            onCancel: { pump.withLock { $0?.cancel() } })
        self.init(source: .buffer(buffer))
        let task = Task {
            var resumes = resumes.makeAsyncIterator()
            do {
                reading: for try await chunk in sequence {
                    while true {
                        switch buffer.offer(chunk) {
                        case .accepted: continue reading
                        case .discarded: return
                        case .pause: guard await resumes.next() != nil, !Task.isCancelled else { return }
                        }
                    }
                }
                buffer.finish(nil)
            } catch let error as RestingError {
                buffer.finish(error)
            } catch is CancellationError {
                buffer.finish(.cancelled)
            } catch {
                buffer.finish(
                    .transportFailed(
                        TransportError(kind: .other, code: 0, domain: "\(Chunks.self)", message: "\(error)")))
            }
        }
        pump.withLock { $0 = task }
        // Cancelled before the task existed: the hook above found nothing to cancel.
        if buffer.isCancelled { task.cancel() }
    }

    /// The same body, read through this new stream (which owns `stream` from now on).
    convenience init(wrapping stream: ResponseBodyStream) {
        self.init(
            source: .sequence(
                {
                    var inner = stream.makeAsyncIterator()
                    return ChunkReader(next: { try await inner.next() }, cancel: {})
                }, cancel: stream.cancel, trailers: { stream.trailers }, wrapped: stream))
    }

    deinit {
        // A body nobody will read must not keep its transfer (and connection) busy.
        if case .buffer(let buffer) = source { buffer.cancel() }
        terminate(RestingError.cancelled)
    }

    /// Sets what runs once when this body is over, however it ends.
    package func onTermination(_ handler: @escaping @Sendable ((any Error)?) -> Void) {
        state.withLock { $0.termination = handler }
    }

    /// Ends this body failed with `error`, and the stream it wraps, whose end a call may be waiting for.
    private func fail(reading error: any Error) {
        terminate(error)
        if case .sequence(_, _, _, let wrapped?) = source { wrapped.fail(reading: error) } else { cancel() }
    }

    /// Calls the termination handler, if it has not run, with `error` — made only then: a `RestingError` boxed as
    /// `any Error` is an allocation, and a stream's deinit, which runs after its end has been told, would pay it.
    fileprivate func terminate(_ error: @autoclosure () -> (any Error)?) {
        let handler = state.withLock { state in
            defer { state.termination = nil }
            return state.termination
        }
        handler?(error())
    }

    /// The fields that came after the body (a chunked body's trailer section, HTTP/2's trailing headers), once it
    /// has ended whole; `nil` before, after a failure, or where the transport cannot read them. Never part of the
    /// response's headers.
    ///
    /// ```swift
    /// for try await chunk in stream { digest.update(chunk) }
    /// let expected = stream.trailers?["X-Checksum"]
    /// ```
    public var trailers: HTTPHeaderFields? {
        switch source {
        case .buffer(let buffer): buffer.trailers
        case .sequence(_, _, let trailers, _): trailers?()
        }
    }

    /// A stream that a transport feeds through `buffer`: what RestingTransportKit's `ResponseBodyFeed` makes.
    package convenience init(fedBy buffer: StreamBuffer) { self.init(source: .buffer(buffer)) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let stream: ResponseBodyStream
        fileprivate let reader: ChunkReader

        public mutating func next() async throws -> Data? {
            do {
                guard let chunk = try await reader.next() else {
                    stream.terminate(nil)
                    return nil
                }
                return chunk
            } catch {
                stream.terminate(error as? RestingError ?? .cancelled)
                throw error
            }
        }

        /// Ends the body because its reader cannot go on with it (a line or an event over its limit): the transfer
        /// stops, and the call ends failed with `error`, not cancelled.
        package func fail(reading error: any Error) { stream.fail(reading: error) }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let first = state.withLock { state in
            defer { state.isIterated = true }
            return !state.isIterated
        }
        guard first else {
            return AsyncIterator(
                stream: self, reader: ChunkReader(next: { throw RestingError.bodyAlreadyConsumed }, cancel: {}))
        }
        // A reader that leaves early ends the body as a cancellation would.
        let reader: ChunkReader
        switch source {
        case .buffer(let buffer):
            reader = ChunkReader(next: { try await buffer.take() }, cancel: buffer.cancel)
        case .sequence(let makeReader, _, _, _):
            reader = makeReader()
        }
        reader.whenLeft { self.terminate(RestingError.cancelled) }
        return AsyncIterator(stream: self, reader: reader)
    }

    /// Bytes of the body this stream holds in memory now, waiting for the reader: what the conformance kit bounds
    /// for a slow reader (0 for a body read from another sequence, which holds none of its own).
    package var retainedBytes: Int {
        guard case .buffer(let buffer) = source else { return 0 }
        return buffer.retainedBytes
    }

    /// Stops the body: the transfer ends and a waiting reader fails with ``RestingError/cancelled``.
    public func cancel() {
        switch source {
        case .buffer(let buffer): buffer.cancel()
        case .sequence(_, let cancel, _, _): cancel?()
        }
        terminate(RestingError.cancelled)
    }

    /// The whole body, read into memory; fails with ``RestingError/responseTooLarge(limit:)`` past `limit` bytes.
    ///
    /// ```swift
    /// let errorBody = try await response.body.collect(upTo: 64 * 1024)
    /// ```
    public func collect(upTo limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                cancel()
                throw RestingError.responseTooLarge(limit: Int64(limit))
            }
            data.append(chunk)
        }
        return data
    }

    /// This body as it passes, chunk by chunk, through `onChunk`; `onEnd` is called once with how it ended
    /// (`nil` when whole, the error, or ``RestingError/cancelled`` when the reader gave up — or dropped the body
    /// without reading it). What a logging or metrics interceptor uses to count bytes without buffering them.
    ///
    /// ```swift
    /// response.body = ResponseBody(stream.observed(onChunk: { bytes += $0.count }, onEnd: { _ in log(bytes) }))
    /// ```
    public func observed(
        onChunk: @escaping @Sendable (Data) -> Void, onEnd: @escaping @Sendable (RestingError?) -> Void
    ) -> ResponseBodyStream {
        let end = StreamEnd(onEnd)
        return ResponseBodyStream(
            source: .sequence(
                {
                    var inner = self.makeAsyncIterator()
                    return ChunkReader(
                        next: {
                            do {
                                guard let chunk = try await inner.next() else {
                                    end(nil)
                                    return nil
                                }
                                onChunk(chunk)
                                return chunk
                            } catch {
                                end(error as? RestingError ?? .cancelled)
                                throw error
                            }
                        },
                        cancel: { end(.cancelled) })
                }, cancel: cancel, trailers: { self.trailers }, wrapped: self))
    }

    /// This body, counting its bytes as the reader takes them; `onEnd` is told how many passed and how the body
    /// ended, as ``observed(onChunk:onEnd:)`` says.
    package func counted(_ onEnd: @escaping @Sendable (_ bytes: Int64, _ error: RestingError?) -> Void)
        -> ResponseBodyStream
    {
        let bytes = Locked<Int64>(0)
        return observed(
            onChunk: { chunk in bytes.withLock { $0 += Int64(chunk.count) } },
            onEnd: { error in onEnd(bytes.withLock { $0 }, error) })
    }
}

/// How an observed body ended, told once: by its reader, or — when the body is dropped unread, or its reader is
/// dropped mid-way — as cancelled when the last reference goes.
private final class StreamEnd: Sendable {
    private let onEnd: Locked<(@Sendable (RestingError?) -> Void)?>

    init(_ onEnd: @escaping @Sendable (RestingError?) -> Void) { self.onEnd = Locked(onEnd) }

    func callAsFunction(_ error: RestingError?) {
        onEnd.withLock { onEnd in
            defer { onEnd = nil }
            return onEnd
        }?(error)
    }

    deinit { self(.cancelled) }
}

/// One iteration's way to read chunks, and to say that the reader left early.
final class ChunkReader {
    private let read: () async throws -> Data?
    private var onCancel: () -> Void
    private var isDone = false

    init(next: @escaping () async throws -> Data?, cancel: @escaping () -> Void) {
        read = next
        onCancel = cancel
    }

    func next() async throws -> Data? {
        guard !isDone else { return nil }
        do {
            guard let chunk = try await read() else {
                isDone = true
                return nil
            }
            return chunk
        } catch {
            isDone = true
            throw error
        }
    }

    /// Runs `handler` too when the reader leaves before the end.
    func whenLeft(_ handler: @escaping () -> Void) {
        let first = onCancel
        onCancel = {
            first()
            handler()
        }
    }

    deinit {
        // The loop was left before the end (a `break`, a thrown error in the loop body).
        if !isDone { onCancel() }
    }
}
