import Synchronization

/// One call's way to its listener: stamps each event with the call and the time, and lets exactly one terminal
/// event through — the first of the racing endings (a failure and a cancellation, a body's end and a
/// `cancelAll()`) — and nothing after it. Made only when the client has a listener: a call without one carries
/// `nil` and pays one comparison per stage.
package final class CallEventReporter: Sendable {
    package let callID: UInt64
    private let listener: any CallEventListener
    /// An atomic rather than a lock: read at every event of every call, and set once.
    private let ended = Atomic<Bool>(false)

    init(callID: UInt64, listener: any CallEventListener) {
        self.callID = callID
        self.listener = listener
    }

    /// Reports `kind`, unless the call has ended; a terminal `kind` ends it.
    package func report(_ kind: CallEvent.Kind) {
        let deliver =
            kind.isTerminal
            ? ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
            : !ended.load(ordering: .acquiring)
        if deliver { listener.handle(CallEvent(callID: callID, kind: kind)) }
    }

    /// Ends the call with `error`: cancelled, or failed.
    package func fail(_ error: any Error) {
        if case RestingError.cancelled = error {
            report(.callCancelled)
        } else {
            report(.callFailed(errorType: RestingError.errorType(of: error), message: String(describing: error)))
        }
    }

    /// Ends the call with how its streamed body ended (`nil`: whole), or how its reader failed.
    package func end(status: Int, body error: (any Error)?) {
        switch error {
        case nil: report(.callEnded(status: status))
        case let error?: fail(error)
        }
    }
}

extension HTTPDataResponse {
    /// This response as its call's answer: the call's end is reported to `events` now for a body in memory, and
    /// when the body ends for a stream.
    func ending(_ events: CallEventReporter?) -> HTTPDataResponse {
        guard let events else { return self }
        guard let stream = body.stream else {
            events.report(.callEnded(status: status))
            return self
        }
        var response = self
        response.body = ResponseBody(
            stream.observed(onChunk: { _ in }, onEnd: { [status] error in events.end(status: status, body: error) }))
        return response
    }
}
