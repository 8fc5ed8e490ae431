#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The hand-over between a transport producing body chunks and one reader consuming them, as a value type:
/// every event returns what the owner must do (deliver to the waiting reader, pause or resume the producer),
/// so the rules are unit-tested without sockets or tasks.
///
/// The buffer holds at most `limit` bytes plus the one chunk that crossed it: an offer past the limit is
/// refused with ``Offer/full`` and the producer pauses (libcurl keeps the refused chunk and offers it again).
/// The producer is told to resume once the reader has brought the buffer down to half the limit — not at
/// the first byte below it, so that a pause lasts long enough to be worth its wake-up.
package struct BodyBufferState: Sendable {
    package enum Offer: Equatable, Sendable {
        /// The chunk was taken (buffered).
        case accepted
        /// The chunk goes straight to the reader waiting for it.
        case deliver
        /// The buffer is full: the chunk was not taken; pause and offer it again after
        /// ``Take/chunk(_:resumeProducer:)`` says so.
        case full
        /// Nobody will read it (the reader cancelled, or the body already ended): stop the transfer.
        case discarded
    }

    package enum Take: Sendable {
        case chunk(Data, resumeProducer: Bool)
        /// The body ended, with `nil` for a complete body.
        case end(RestingError?)
        /// Nothing yet: the reader waits (``isReaderWaiting`` is now true) and is handed the next offer or end.
        case wait(resumeProducer: Bool)
    }

    package enum Finish: Sendable {
        /// The waiting reader must be resumed with this end.
        case deliverToReader(RestingError?)
        /// The waiting reader must be resumed with the producer's last chunk; the end waits for its next take.
        case deliverLastChunkToReader(Data)
        /// Kept for the reader's next take.
        case stored
        /// The body had already ended or was cancelled.
        case ignored
    }

    package enum Cancel: Equatable, Sendable {
        /// Stop the producer; `resumeReader` when a reader was waiting and must be failed with
        /// ``RestingError/cancelled``.
        case stopProducer(resumeReader: Bool)
        /// The body had already ended: nothing to stop.
        case nothing(resumeReader: Bool)
    }

    package let limit: Int
    private var chunks: [Data] = []
    private var firstChunk = 0
    package private(set) var bufferedBytes = 0
    package private(set) var isProducerPaused = false
    package private(set) var isReaderWaiting = false
    private var end: RestingError??
    private var endDelivered = false
    package private(set) var isCancelled = false

    package init(limit: Int) { self.limit = max(1, limit) }

    /// Bytes of the chunks the buffer still holds: its memory, which taken chunks no longer count in.
    package var retainedBytes: Int { chunks.reduce(0) { $0 + $1.count } }

    /// Whether the body has ended (completely, with an error, or by cancellation).
    package var hasEnded: Bool { end != nil || isCancelled }

    package mutating func offer(_ chunk: Data) -> Offer {
        guard !hasEnded else { return .discarded }
        if isReaderWaiting {
            isReaderWaiting = false
            return .deliver
        }
        guard bufferedBytes < limit else {
            isProducerPaused = true
            return .full
        }
        chunks.append(chunk)
        bufferedBytes += chunk.count
        return .accepted
    }

    /// The producer ends the body: `nil` when it arrived whole, else the error that cut it. `last` is taken
    /// whatever the limit (a producer that coalesces chunks has nowhere else to keep it).
    package mutating func finish(_ error: RestingError?, last: Data = Data()) -> Finish {
        guard !hasEnded else { return .ignored }
        end = .some(error)
        if !last.isEmpty {
            guard !isReaderWaiting else {
                isReaderWaiting = false
                return .deliverLastChunkToReader(last)
            }
            chunks.append(last)
            bufferedBytes += last.count
        }
        guard isReaderWaiting else { return .stored }
        isReaderWaiting = false
        endDelivered = true
        return .deliverToReader(error)
    }

    /// The reader asks for the next chunk.
    package mutating func take() -> Take {
        if firstChunk < chunks.count {
            let chunk = chunks[firstChunk]
            // The taken chunk's bytes belong to the reader now: the buffer lets go of them at once, or a reader
            // slower than the network (which never lets the buffer drain) would keep the whole body alive.
            chunks[firstChunk] = Data()
            firstChunk += 1
            bufferedBytes -= chunk.count
            chunks.dropSpentChunks(before: &firstChunk)
            return .chunk(chunk, resumeProducer: resumesProducer())
        }
        if isCancelled { return .end(endDelivered ? nil : .cancelled) }
        if let end {
            // An error is thrown once; after it the sequence just ends, as AsyncSequence iterators do.
            defer { endDelivered = true }
            return .end(endDelivered ? nil : end)
        }
        isReaderWaiting = true
        return .wait(resumeProducer: resumesProducer())
    }

    private mutating func resumesProducer() -> Bool {
        guard isProducerPaused, bufferedBytes <= limit / 2 else { return false }
        isProducerPaused = false
        return true
    }

    /// The reader gives up (left its loop, was cancelled, or dropped the stream): the buffer is freed.
    package mutating func cancel() -> Cancel {
        let resumeReader = isReaderWaiting
        isReaderWaiting = false
        chunks.removeAll()
        firstChunk = 0
        bufferedBytes = 0
        guard !hasEnded else {
            if resumeReader { endDelivered = true }
            return .nothing(resumeReader: resumeReader)
        }
        isCancelled = true
        if resumeReader { endDelivered = true }
        return .stopProducer(resumeReader: resumeReader)
    }
}

extension Array where Element == Data {
    /// Drops the spent chunks before `head`: all at once when every chunk is spent, else in batches, so that a queue
    /// of many small chunks costs amortised O(1) per chunk rather than a shift of the whole array each time.
    package mutating func dropSpentChunks(before head: inout Int) {
        if head == count {
            removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= count {
            removeFirst(head)
            head = 0
        }
    }
}
