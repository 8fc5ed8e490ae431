import Foundation
import Testing

@testable import RestingCore

/// The hand-over between a transport and the reader of a streamed body, without sockets or tasks.
@Suite("Streamed body buffer")
struct BodyBufferStateTests {
    let chunk = Data(count: 10)

    @Test("chunks are buffered up to the limit; the next offer is refused and pauses the producer")
    func pausesPastTheLimit() {
        var buffer = BodyBufferState(limit: 30)
        #expect(buffer.offer(chunk) == .accepted)
        #expect(buffer.offer(chunk) == .accepted)
        #expect(buffer.offer(chunk) == .accepted)
        #expect(buffer.bufferedBytes == 30)
        #expect(buffer.offer(chunk) == .full)
        #expect(buffer.isProducerPaused)
        #expect(buffer.bufferedBytes == 30, "a refused chunk is not taken: the producer offers it again")
    }

    @Test("the producer resumes once the reader has brought the buffer down to half, not before")
    func resumesAtHalf() {
        var buffer = BodyBufferState(limit: 40)
        for _ in 0..<4 { _ = buffer.offer(chunk) }
        #expect(buffer.offer(chunk) == .full)
        guard case .chunk(_, let first) = buffer.take(), case .chunk(_, let second) = buffer.take() else {
            Issue.record("expected chunks")
            return
        }
        #expect(!first, "30 of 40 bytes still wait")
        #expect(second, "20 of 40: half")
        #expect(!buffer.isProducerPaused)
        #expect(buffer.offer(chunk) == .accepted)
    }

    @Test("a waiting reader is handed the next chunk directly, and the end")
    func waitingReader() {
        var buffer = BodyBufferState(limit: 30)
        guard case .wait(let resume) = buffer.take() else {
            Issue.record("expected to wait")
            return
        }
        #expect(!resume)
        #expect(buffer.isReaderWaiting)
        #expect(buffer.offer(chunk) == .deliver)
        #expect(buffer.bufferedBytes == 0)
        guard case .wait = buffer.take() else {
            Issue.record("expected to wait")
            return
        }
        guard case .deliverToReader(let error) = buffer.finish(nil) else {
            Issue.record("expected the end to go to the reader")
            return
        }
        #expect(error == nil)
    }

    @Test("buffered chunks are read before the end; an error is thrown once, then the body just ends")
    func endAfterChunks() {
        var buffer = BodyBufferState(limit: 30)
        _ = buffer.offer(chunk)
        guard case .stored = buffer.finish(.cancelled) else {
            Issue.record("expected the end to be stored")
            return
        }
        guard case .chunk = buffer.take() else {
            Issue.record("the chunk comes first")
            return
        }
        guard case .end(let error?) = buffer.take(), case .cancelled = error else {
            Issue.record("then the error")
            return
        }
        guard case .end(nil) = buffer.take() else {
            Issue.record("then nothing")
            return
        }
        #expect(buffer.offer(chunk) == .discarded)
        guard case .ignored = buffer.finish(nil) else {
            Issue.record("a second end is ignored")
            return
        }
    }

    @Test("cancelling frees the buffer, stops the producer once, and fails a waiting reader")
    func cancel() {
        var buffer = BodyBufferState(limit: 30)
        _ = buffer.offer(chunk)
        #expect(buffer.cancel() == .stopProducer(resumeReader: false))
        #expect(buffer.bufferedBytes == 0)
        #expect(buffer.offer(chunk) == .discarded)
        #expect(buffer.cancel() == .nothing(resumeReader: false))
        guard case .end(let error?) = buffer.take(), case .cancelled = error else {
            Issue.record("expected .cancelled")
            return
        }

        var waiting = BodyBufferState(limit: 30)
        _ = waiting.take()
        #expect(waiting.cancel() == .stopProducer(resumeReader: true))

        var ended = BodyBufferState(limit: 30)
        _ = ended.finish(nil)
        #expect(ended.cancel() == .nothing(resumeReader: false), "a body that ended has no producer to stop")
    }

    @Test("a reader slower than the producer never lets the buffer drain, and the buffer still lets go of what it took")
    func slowReaderKeepsOnlyTheUnreadChunks() {
        var buffer = BodyBufferState(limit: 40)
        var offered = 0
        // The producer refills the buffer after every take, so that it never empties (the reader is always behind).
        for _ in 0..<10_000 {
            while buffer.offer(chunk) != .full { offered += 1 }
            guard case .chunk = buffer.take() else {
                Issue.record("expected a chunk")
                return
            }
            #expect(buffer.retainedBytes <= 40 + chunk.count, "after \(offered) chunks offered")
            if buffer.retainedBytes > 40 + chunk.count { return }
        }
        #expect(offered > 10_000)
    }
}
