import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore

/// A streamed call's phases, without a socket: how its streams, its reconnecting reader and a cancellation end it,
/// in the registry behind `cancelAll()` and in the event stream.
@Suite("Streamed calls")
struct StreamedCallTests {
    /// A call in a fresh registry, its end reported to `recorder`.
    private static func call(_ recorder: EventRecorder) -> (StreamedCall, CallRegistry) {
        let registry = CallRegistry()
        let call = StreamedCall(
            registry: registry, ending: (CallEventReporter(callID: 1, listener: recorder), status: 200))
        return (call, registry)
    }

    @Test("read without reconnection, the stream's end is the call's: registered while it is read, then gone")
    func streamEndEndsTheCall() async throws {
        let recorder = EventRecorder()
        let (call, registry) = Self.call(recorder)
        let stream = ResponseBodyStream(chunks: [Data("a".utf8), Data("b".utf8)])
        call.attach(stream)
        #expect(registry.count == 1)
        _ = try await stream.collect(upTo: 16)
        #expect(registry.count == 0)
        #expect(recorder.kinds == [.callEnded(status: 200)])
    }

    @Test("cancelled before its stream is attached, the stream is cancelled at once and nothing is registered")
    func cancelledBeforeAttach() async throws {
        let recorder = EventRecorder()
        let (call, registry) = Self.call(recorder)
        call.cancel()
        // A body with a producer of its own, which a cancellation stops: a server's, as a transport feeds it.
        let stream = ResponseBodyStream(AsyncStream<Data> { _ in })
        call.attach(stream)
        #expect(registry.count == 0)
        await #expect(throws: RestingError.cancelled) { _ = try await stream.collect(upTo: 16) }
    }

    @Test("held open by a reconnecting reader, a stream's end does not end the call; the reader's finish does, as it")
    func heldOpenEndsAtFinish() async throws {
        let recorder = EventRecorder()
        let (call, registry) = Self.call(recorder)
        call.holdOpen()
        let stream = ResponseBodyStream(chunks: [Data("a".utf8)])
        call.attach(stream)
        _ = try await stream.collect(upTo: 16)
        #expect(registry.count == 1, "between streams, cancelAll() still reaches the call")
        #expect(recorder.kinds.isEmpty)
        call.finish(failing: nil)
        #expect(registry.count == 0)
        #expect(recorder.kinds == [.callEnded(status: 200)])
    }

    @Test("cancelAll() during the wait before a reconnection cuts the wait, refuses the reconnection, ends cancelled")
    func cancelledWhileWaiting() async throws {
        let recorder = EventRecorder()
        let (call, registry) = Self.call(recorder)
        call.holdOpen()
        let waiting = Task { try await call.wait(.seconds(3600)) }
        registry.cancelAll()
        await #expect(throws: RestingError.cancelled) { try await waiting.value }
        await #expect(throws: RestingError.cancelled) {
            _ = try await call.reopen([]) { _ in ResponseBodyStream(chunks: []) }
        }
        call.finish(failing: nil)
        #expect(registry.count == 0)
        #expect(recorder.kinds == [.callCancelled])
    }

    @Test("a finished call is not registered again, and a cancellation after its end changes nothing")
    func finishedIsFinal() async throws {
        let recorder = EventRecorder()
        let (call, registry) = Self.call(recorder)
        call.holdOpen()
        call.finish(failing: nil)
        call.cancel()
        call.finish(failing: nil)
        #expect(registry.count == 0)
        #expect(recorder.kinds == [.callEnded(status: 200)])
    }
}
