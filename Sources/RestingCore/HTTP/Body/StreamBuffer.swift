#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shared end of a transport-fed ``ResponseBodyStream``: a ``BodyBufferState`` under a lock, the reader's
/// continuation while it waits, and the producer's resume and cancel callbacks, which are always called
/// outside the lock. Transports reach it through RestingTransportKit's `ResponseBodyFeed`.
package final class StreamBuffer: Sendable {
    /// What happened to an offered chunk.
    package enum Offer: Sendable, Equatable {
        /// Taken; keep going.
        case accepted
        /// Not taken, the buffer being full: offer it again once `onResume` is called.
        case pause
        /// The reader is gone: stop the transfer.
        case discarded
    }

    private struct Shared {
        var state: BodyBufferState
        var reader: CheckedContinuation<Data?, any Error>?
        /// The fields after the body, once it ended whole.
        var trailers: HTTPHeaderFields?
    }

    private let shared: Locked<Shared>
    private let onResume: @Sendable () -> Void
    private let onCancel: @Sendable () -> Void

    package init(limit: Int, onResume: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void) {
        shared = Locked(Shared(state: BodyBufferState(limit: limit)))
        self.onResume = onResume
        self.onCancel = onCancel
    }

    package func offer(_ chunk: Data) -> Offer {
        let (offer, reader) = shared.withLock { shared in
            let offer = shared.state.offer(chunk)
            defer { if offer == .deliver { shared.reader = nil } }
            return (offer, shared.reader)
        }
        switch offer {
        case .accepted: return .accepted
        case .deliver:
            reader?.resume(returning: chunk)
            return .accepted
        case .full: return .pause
        case .discarded: return .discarded
        }
    }

    /// The fields the transport read after the body, once the body has ended whole; `nil` before.
    package var trailers: HTTPHeaderFields? { shared.withLock { $0.trailers } }

    package func finish(_ error: RestingError?, last: Data = Data(), trailers: HTTPHeaderFields? = nil) {
        let (finish, reader) = shared.withLock { shared in
            if error == nil, let trailers { shared.trailers = trailers }
            let finish = shared.state.finish(error, last: last)
            let reader = shared.reader
            switch finish {
            case .deliverToReader, .deliverLastChunkToReader: shared.reader = nil
            case .stored, .ignored: break
            }
            return (finish, reader)
        }
        switch finish {
        case .deliverToReader(let end?): reader?.resume(throwing: end)
        case .deliverToReader(nil): reader?.resume(returning: nil)
        case .deliverLastChunkToReader(let chunk): reader?.resume(returning: chunk)
        case .stored, .ignored: break
        }
    }

    func take() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in hand(to: continuation) }
        } onCancel: {
            cancel()
        }
    }

    /// Gives the reader waiting as `continuation` the next chunk or the end, or keeps it until one comes. Apart from
    /// ``take()``, whose frame a reader holds while it waits — an open stream's whole life.
    @inline(never)
    private func hand(to continuation: CheckedContinuation<Data?, any Error>) {
        let take = shared.withLock { shared in
            let take = shared.state.take()
            if case .wait = take { shared.reader = continuation }
            return take
        }
        switch take {
        case .chunk(let chunk, let resumeProducer):
            continuation.resume(returning: chunk)
            if resumeProducer { onResume() }
        case .end(let error):
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
        case .wait(let resumeProducer):
            if resumeProducer { onResume() }
            // A cancellation that arrived before the reader was stored is seen here.
            if Task.isCancelled { cancel() }
        }
    }

    /// Bytes of the chunks the buffer holds (``BodyBufferState/retainedBytes``).
    var retainedBytes: Int { shared.withLock { $0.state.retainedBytes } }

    /// Whether the reader has given up.
    var isCancelled: Bool { shared.withLock { $0.state.isCancelled } }

    /// The reader gives up: stop the producer, fail a waiting reader.
    func cancel() {
        let (cancel, reader) = shared.withLock { shared in
            let cancel = shared.state.cancel()
            defer { shared.reader = nil }
            return (cancel, shared.reader)
        }
        switch cancel {
        case .stopProducer(let resumeReader):
            if resumeReader { reader?.resume(throwing: RestingError.cancelled) }
            onCancel()
        case .nothing(let resumeReader):
            if resumeReader { reader?.resume(throwing: RestingError.cancelled) }
        }
    }
}
