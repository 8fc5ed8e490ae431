import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a non-blocking read of a ``SequenceBodyReader`` found.
package enum BodyPoll {
    /// This many bytes were copied.
    case bytes(Int)
    /// The body has ended.
    case end
    /// Nothing yet: the wake-up given to the poll runs once there is (bytes, the end or a failure).
    case pending
    /// The sequence failed, or the reader was closed.
    case failed(RestingError)
}

/// Reads one attempt of a ``RequestBodySequence``: a task iterates the sequence into a buffer of at most
/// ``RequestBodySequence/bufferLimit`` bytes (plus the chunk that crossed it) and waits while it is full; the transport
/// takes bytes out without ever blocking the producer's thread, in one of three ways:
///
/// - ``poll(into:orWhenReadable:)`` never blocks: libcurl's read callback pauses the transfer on `.pending` and the
///   wake-up unpauses it;
/// - ``read(into:)`` blocks its thread until bytes arrive — for a transport's own thread only, never one of Swift's
///   cooperative pool (the producer needs those) nor one the producer may wait for (FoundationNetworking's shared
///   queue: `URLSessionClient` spools such a body instead, see ``RequestBody/spooled(memoryLimit:diskLimit:)``);
/// - ``next(upTo:)`` suspends, for Swift code.
///
/// The iteration starts at the first read, so a reader made and closed unread consumes nothing of a single-pass body.
/// ``close()`` ends it: the producer's task is cancelled and a read blocked in another thread returns.
package final class SequenceBodyReader: RequestBodyReader, Sendable {
    fileprivate struct State {
        /// Chunks waiting to be read; those before `head` are spent.
        var chunks: [Data] = []
        var head = 0
        /// How far into `chunks[head]` the reader has got.
        var offset = 0
        var buffered = 0
        var produced: Int64 = 0
        var production = Production.notStarted
        var wakeReader: (@Sendable () -> Void)?
        var wakeProducer: CheckedContinuation<Bool, Never>?
    }

    /// Where the sequence's iteration is. The bytes it produced stay readable after it ended or failed, until the
    /// reader closes.
    fileprivate enum Production {
        /// Nothing read yet: a reader closed now has consumed nothing of a single-pass body.
        case notStarted
        /// Its task iterates the sequence (`nil` for the moment between the first read and the task's start).
        case running(Task<Void, Never>?)
        /// The sequence ended whole.
        case finished
        /// The sequence failed, or broke its announced length.
        case failed(RestingError)
        /// The reader closed: the task is cancelled, the bytes dropped.
        case closed

        /// Whether the producer may still add bytes.
        var isRunning: Bool {
            if case .running = self { true } else { false }
        }
    }

    private let body: RequestBodySequence
    private let state = Locked(State())

    /// A reader of `body`; fails at once when it is single-pass and an earlier attempt has begun reading it.
    package init(_ body: RequestBodySequence) throws(RestingError) {
        guard body.canBeSent else { throw .requestBodyNotReplayable }
        self.body = body
    }

    deinit { close() }

    /// Copies up to `buffer.count` waiting bytes, or reports the end, a failure, or that `wake` will be called once
    /// there is something to report (only the last poll's wake-up is kept).
    package func poll(
        into buffer: UnsafeMutableRawBufferPointer, orWhenReadable wake: @escaping @Sendable () -> Void
    ) -> BodyPoll {
        var producerToWake: CheckedContinuation<Bool, Never>?
        var startsProducer = false
        let result = state.withLock { state -> BodyPoll in
            if case .closed = state.production { return .failed(.cancelled) }
            if state.buffered > 0 {
                let count = state.copyOut(into: buffer)
                if state.buffered <= RequestBodySequence.bufferLimit / 2 { producerToWake = state.takeProducer() }
                return .bytes(count)
            }
            switch state.production {
            case .failed(let failure): return .failed(failure)
            case .finished: return .end
            case .notStarted:
                state.production = .running(nil)
                startsProducer = true
            case .running, .closed: break
            }
            state.wakeReader = wake
            return .pending
        }
        producerToWake?.resume(returning: true)
        if startsProducer { startProducer() }
        return result
    }

    /// Blocks the calling thread until bytes, the end or a failure arrive. Never call it from Swift's cooperative
    /// pool, nor from a thread the producer may be waiting for.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int {
        while true {
            let arrived = DispatchSemaphore(value: 0)
            switch poll(into: buffer, orWhenReadable: { arrived.signal() }) {
            case .bytes(let count): return count
            case .end: return 0
            case .failed(let error): throw error
            case .pending: arrived.wait()
            }
        }
    }

    /// The next bytes, at most `limit` of them; `nil` at the end.
    package func next(upTo limit: Int) async throws(RestingError) -> Data? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: limit, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            switch poll(into: buffer, orWhenReadable: { arrived.yield() }) {
            case .bytes(let count): return Data(buffer[..<count])
            case .end: return nil
            case .failed(let error): throw error
            case .pending:
                for await _ in arrivals { break }
                // The stream ends at once for a cancelled task: the reader is its caller's alone, so it closes.
                if Task.isCancelled {
                    close()
                    throw .cancelled
                }
            }
        }
    }

    /// Stops the iteration and wakes a blocked reader, which then fails with ``RestingError/cancelled``.
    package func close() {
        let (producer, reader, waitingProducer) = state.withLock { state in
            var producer: Task<Void, Never>?
            if case .running(let task) = state.production { producer = task }
            state.production = .closed
            state.chunks = []
            state.buffered = 0
            return (producer, state.wakeReader.take(), state.takeProducer())
        }
        producer?.cancel()
        waitingProducer?.resume(returning: false)
        reader?()
    }

    /// Returns once the producer waits for the reader to make room (for tests).
    package func waitUntilProducerWaitsForRoom() async {
        while state.withLock({ $0.wakeProducer == nil }) { await Task.yield() }
    }

    /// Returns once a read waits for the producer (for tests).
    package func waitUntilReadIsPending() async {
        while state.withLock({ $0.wakeReader == nil }) { await Task.yield() }
    }

    /// The producer's task holds the state and the sequence, not the reader: a reader dropped unclosed still ends it.
    private func startProducer() {
        let task = Task { [body, state] in
            guard body.beginPass() else { return Self.finish(state, body, failure: .requestBodyNotReplayable) }
            do {
                try await body.produce { chunk in await Self.deliver(chunk, to: state, body) }
                Self.finish(state, body, failure: nil)
            } catch let error as RestingError {
                Self.finish(state, body, failure: error)
            } catch {
                Self.finish(state, body, failure: .bodyUnreadable(reason: "the body's sequence failed: \(error)"))
            }
        }
        let closedMeanwhile = state.withLock { state in
            guard case .running = state.production else { return true }
            state.production = .running(task)
            return false
        }
        if closedMeanwhile { task.cancel() }
    }

    /// Adds a chunk and waits while the buffer is full; false once the reader has gone.
    private static func deliver(_ chunk: Data, to state: Locked<State>, _ body: RequestBodySequence) async -> Bool {
        let (reader, mustWait, stops) = state.withLock { state -> ((@Sendable () -> Void)?, Bool, Bool) in
            guard state.production.isRunning else { return (nil, false, true) }
            state.produced += Int64(chunk.count)
            if let length = body.contentLength, state.produced > length {
                state.production = .failed(
                    .bodyUnreadable(reason: "the body's sequence yielded more than its \(length) bytes"))
                return (state.wakeReader.take(), false, true)
            }
            guard !chunk.isEmpty else { return (nil, false, false) }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return (state.wakeReader.take(), state.buffered >= RequestBodySequence.bufferLimit, false)
        }
        reader?()
        if stops { return false }
        guard mustWait else { return true }
        return await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool? in
                if case .closed = state.production { return false }
                if state.buffered < RequestBodySequence.bufferLimit { return true }
                state.wakeProducer = continuation
                return nil
            }
            if let resumeNow { continuation.resume(returning: resumeNow) }
        }
    }

    private static func finish(_ state: Locked<State>, _ body: RequestBodySequence, failure: RestingError?) {
        let reader = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.production.isRunning else { return nil }
            if let failure {
                state.production = .failed(failure)
            } else if let length = body.contentLength, state.produced != length {
                state.production = .failed(
                    .bodyUnreadable(reason: "the body's sequence ended after \(state.produced) of its \(length) bytes"))
            } else {
                state.production = .finished
            }
            return state.wakeReader.take()
        }
        reader?()
    }
}

extension SequenceBodyReader.State {
    mutating func takeProducer() -> CheckedContinuation<Bool, Never>? { wakeProducer.take() }

    /// Moves waiting bytes into `buffer`, chunk after chunk.
    mutating func copyOut(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var copied = 0
        while copied < buffer.count, head < chunks.count {
            let chunk = chunks[head]
            let count = min(buffer.count - copied, chunk.count - offset)
            let start = chunk.startIndex + offset
            chunk.copyBytes(to: base + copied, from: start..<(start + count))
            copied += count
            offset += count
            if offset == chunk.count {
                chunks[head] = Data()
                head += 1
                offset = 0
            }
        }
        chunks.dropSpentChunks(before: &head)
        buffered -= copied
        return copied
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
