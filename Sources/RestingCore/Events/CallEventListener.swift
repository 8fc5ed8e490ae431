/// Receives the events of a client's calls (OkHttp's `EventListener`): where a call's time went, which attempt a
/// retry was, whether a connection was reused, how many bytes a body had — for every call, buffered or streamed.
///
/// ```swift
/// struct SlowCallReporter: CallEventListener {
///     func handle(_ event: CallEvent) {
///         if case .responseHeadReceived(let status, let ttfb?) = event.kind, ttfb > .seconds(1) {
///             print("call \(event.callID): \(status) after \(ttfb)")
///         }
///     }
/// }
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, eventListener: .shared(SlowCallReporter()))
/// ```
///
/// **Synchronous.** `handle` runs on the task or thread where the event happened, before the call goes on: keep it
/// short (record, count, hand over). It cannot throw, so no listener can break a call; a listener that must do slow
/// work hands events to a ``CallEventBuffer``, which a slow consumer cannot make a call wait for.
public protocol CallEventListener: Sendable {
    /// Takes one event of a call.
    func handle(_ event: CallEvent)
}

/// How a client gets a listener for each call: one shared by every call, or one made per call (which can keep
/// that call's state — its start time, its bytes — without a lock shared across calls).
///
/// ```swift
/// RestingClient(baseUrl: baseUrl, httpClient: transport, eventListener: .shared { event in print(event) })
/// RestingClient(baseUrl: baseUrl, httpClient: transport, eventListener: .perCall { _ in CallTimeline() })
/// ```
public struct EventListenerFactory: Sendable {
    let make: @Sendable (_ callID: UInt64) -> any CallEventListener

    /// `listener` for every call.
    public static func shared(_ listener: any CallEventListener) -> EventListenerFactory {
        EventListenerFactory { _ in listener }
    }

    /// `handle` for every call's events.
    public static func shared(_ handle: @escaping @Sendable (CallEvent) -> Void) -> EventListenerFactory {
        .shared(ClosureListener(handle: handle))
    }

    /// A listener made by `make` for each call, when the call starts.
    public static func perCall(
        _ make: @escaping @Sendable (_ callID: UInt64) -> any CallEventListener
    ) -> EventListenerFactory {
        EventListenerFactory(make: make)
    }
}

private struct ClosureListener: CallEventListener {
    let handle: @Sendable (CallEvent) -> Void
    func handle(_ event: CallEvent) { handle(event) }
}
