import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``/RestingCore/RequestBody`` as the `InputStream` URLSession reads an upload from, following the rules that keep
/// FoundationNetworking on Linux fast and safe (each found by measuring; see also the Platform notes article):
///
/// - `hasBytesAvailable` stays `true` until `read` has returned 0 or -1: FoundationNetworking takes `false`
///   for the end of the body and would send a short body with a success status.
/// - `read` never blocks on anything but the local file (`read(2)` through the body's reader).
/// - A failure returns -1 and is kept in ``failure`` so the call reports the body's own error.
/// - One stream per attempt: URLSession asks for a fresh one through `needNewBodyStream`.
///
/// ``TaskExchange`` closes the stream when its task completes, so the file is released then rather than
/// whenever FoundationNetworking lets the stream go; reads and that close take turns.
final class BodyInputStream: InputStream {
    private struct State {
        var reader: (any RequestBodyReader)?
        var ended = false
        var status = Stream.Status.notOpen
        var failure: RestingError?
    }

    private let state: Locked<State>

    init(_ reader: any RequestBodyReader) {
        state = Locked(State(reader: reader))
        super.init(data: Data())
    }

    deinit { close() }

    var failure: RestingError? { state.withLock { $0.failure } }

    override func open() { state.withLock { $0.status = .open } }

    override func close() {
        state.withLock { state in
            state.reader?.close()
            state.reader = nil
            state.ended = true
            state.status = .closed
        }
    }

    override var streamStatus: Stream.Status { state.withLock { $0.status } }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { state.withLock { !$0.ended } }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        state.withLock { state in
            guard !state.ended, let reader = state.reader else { return state.status == .closed ? -1 : 0 }
            do throws(RestingError) {
                let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
                if count == 0 {
                    state.ended = true
                    state.status = .atEnd
                }
                return count
            } catch {
                state.failure = error
                state.ended = true
                state.status = .error
                return -1
            }
        }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }
}
