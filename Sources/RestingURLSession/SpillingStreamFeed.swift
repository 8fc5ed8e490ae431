import Foundation
import RestingTransportKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Feeds a streamed body from URLSession into its ``/RestingCore/ResponseBodyStream`` with memory bounded by the
/// stream's buffer, although URLSession cannot be paused: FoundationNetworking has no way to stop receiving (its
/// `suspend()` removes the transfer from libcurl, which restarts it from the first byte on `resume()`, and pausing a
/// receive is a `fatalError` in it). So when the reader falls behind, chunks go to an unlinked temporary file instead,
/// and come back from it, in order, as the reader catches up.
///
/// The file holds the unread part only, not the whole body: what the reader took is cut off its front (at most
/// twice the unread bytes, plus ``compactionThreshold``, stay on disk). Past `spillLimit` unread bytes the body
/// fails with ``/RestingCore/RestingError/responseTooLarge(limit:)`` rather than fill the disk for a reader that
/// stopped reading.
///
/// The stream's callbacks hold the feed (the reader may drain the file long after the task is gone), and the
/// feed holds the stream's feed until the body ends or the reader cancels: then it lets go of it and
/// closes the file, which breaks the cycle.
final class SpillingStreamFeed: Sendable {
    private struct State {
        /// Until the body ended (or the reader left).
        var bodyFeed: ResponseBodyFeed?
        /// The unlinked spill file, once one was needed.
        var descriptor: Int32 = -1
        var writeOffset: Int64 = 0
        var readOffset: Int64 = 0
        /// The end URLSession reported while spilled bytes were still waiting: delivered after them.
        var pendingEnd: RestingError??
        var isDone: Bool { bodyFeed == nil }
        var spilled: Int64 { writeOffset - readOffset }

        /// Ends the feed: the stream ends with `end` (unless `end` is `nil`, the reader being gone), the file closes.
        mutating func end(_ end: RestingError??) {
            if let end { bodyFeed?.finish(throwing: end) }
            bodyFeed = nil
            if descriptor >= 0 { _ = close(descriptor) }
            descriptor = -1
        }
    }

    private let spillLimit: Int64
    private let state = Locked(State())
    /// How much is read back from the file per chunk.
    static let refillChunkSize = 64 * 1024
    /// Bytes already read back past which the file is compacted (the unread part moved to its start), once they
    /// also outnumber the unread ones: each byte is moved at most once on average.
    static let compactionThreshold: Int64 = 1 << 20

    /// A stream fed by a new feed; `onCancel` runs when the reader gives up.
    static func makeStream(
        bufferSize: Int, spillLimit: Int64, onCancel: @escaping @Sendable () -> Void
    ) -> (ResponseBodyStream, SpillingStreamFeed) {
        let feed = SpillingStreamFeed(spillLimit: spillLimit)
        let (stream, bodyFeed) = ResponseBodyFeed.makeStream(
            bufferSize: bufferSize, onResume: { feed.refill() },
            onCancel: {
                feed.state.withLock { $0.end(nil) }
                onCancel()
            })
        feed.state.withLock { $0.bodyFeed = bodyFeed }
        return (stream, feed)
    }

    private init(spillLimit: Int64) { self.spillLimit = spillLimit }

    deinit {
        state.withLock { $0.end(nil) }
    }

    /// A chunk from URLSession; false when the reader is gone (stop the task).
    func receive(_ chunk: Data) -> Bool {
        state.withLock { state in
            guard let bodyFeed = state.bodyFeed else { return false }
            // Once anything waits in the file, every later chunk goes behind it, to keep the order.
            if state.spilled == 0 {
                switch bodyFeed.yield(chunk) {
                case .accepted: return true
                case .discarded:
                    state.end(nil)
                    return false
                case .pause: break
                }
            }
            if let failure = spill(chunk, in: &state) {
                state.end(failure)
                return false
            }
            return true
        }
    }

    /// The reader caught up: hands it spilled chunks until its buffer is full again or the file is empty.
    func refill() {
        state.withLock { state in
            guard let bodyFeed = state.bodyFeed else { return }
            var buffer = [UInt8](repeating: 0, count: Self.refillChunkSize)
            while state.spilled > 0 {
                let count = Int(min(Int64(buffer.count), state.spilled))
                let read = buffer.withUnsafeMutableBytes {
                    pread(state.descriptor, $0.baseAddress, count, off_t(state.readOffset))
                }
                guard read > 0 else {
                    state.end(Self.failure("cannot read back the streamed body: \(String(cString: strerror(errno)))"))
                    return
                }
                switch bodyFeed.yield(Data(buffer[..<read])) {
                case .accepted: state.readOffset += Int64(read)
                case .pause:
                    if let failure = compact(&state) { state.end(failure) }
                    return
                case .discarded:
                    state.end(nil)
                    return
                }
            }
            // Drained: start the file over (empty on disk too), and deliver an end that waited behind it.
            state.readOffset = 0
            state.writeOffset = 0
            if state.descriptor >= 0 { _ = ftruncate(state.descriptor, 0) }
            if let end = state.pendingEnd {
                state.pendingEnd = nil
                state.end(end)
            }
        }
    }

    /// URLSession reports the body complete (`nil`) or failed.
    func finish(_ error: RestingError?) {
        state.withLock { state in
            guard !state.isDone else { return }
            if state.spilled > 0 {
                state.pendingEnd = .some(error)
                return
            }
            state.end(.some(error))
        }
    }

    /// Moves the unread bytes to the start of the file and cuts it there, once enough has been read back: the
    /// file then holds what the reader has not taken, not everything that was ever spilled.
    private func compact(_ state: inout State) -> RestingError? {
        guard state.readOffset >= Self.compactionThreshold, state.readOffset >= state.spilled else { return nil }
        // The unread range starts at or after its own length: copying it to offset 0 never overwrites unread bytes.
        var buffer = [UInt8](repeating: 0, count: Self.refillChunkSize)
        var moved: Int64 = 0
        while moved < state.spilled {
            let count = Int(min(Int64(buffer.count), state.spilled - moved))
            let copied = buffer.withUnsafeMutableBytes { bytes -> Bool in
                pread(state.descriptor, bytes.baseAddress, count, off_t(state.readOffset + moved)) == count
                    && pwrite(state.descriptor, bytes.baseAddress, count, off_t(moved)) == count
            }
            guard copied else {
                return Self.failure("cannot compact the spill file: \(String(cString: strerror(errno)))")
            }
            moved += Int64(count)
        }
        guard ftruncate(state.descriptor, off_t(state.spilled)) == 0 else {
            return Self.failure("cannot compact the spill file: \(String(cString: strerror(errno)))")
        }
        state.writeOffset = state.spilled
        state.readOffset = 0
        return nil
    }

    /// The spill file's size on disk now (0 without one): what the tests bound.
    var spillFileSize: Int64 {
        state.withLock { state in
            var status = stat()
            guard state.descriptor >= 0, fstat(state.descriptor, &status) == 0 else { return 0 }
            return Int64(status.st_size)
        }
    }

    private func spill(_ chunk: Data, in state: inout State) -> RestingError? {
        guard state.spilled + Int64(chunk.count) <= spillLimit else { return .responseTooLarge(limit: spillLimit) }
        if state.descriptor < 0 {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "resting-stream-\(UUID().uuidString)"
            ).path
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                return Self.failure("cannot create a spill file: \(String(cString: strerror(errno)))")
            }
            // Unlinked at once: the bytes vanish with the descriptor, whatever happens to the process.
            unlink(path)
            state.descriptor = descriptor
        }
        let written = chunk.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = pwrite(
                    state.descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done,
                    off_t(state.writeOffset) + off_t(done))
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        guard written else {
            return Self.failure("cannot spill the streamed body: \(String(cString: strerror(errno)))")
        }
        state.writeOffset += Int64(chunk.count)
        return nil
    }

    private static func failure(_ message: String) -> RestingError {
        .transportFailed(TransportError(kind: .other, code: Int(errno), domain: "POSIX", message: message))
    }
}
