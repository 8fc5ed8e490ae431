/// An event a capability module reports about a call — a breaker that changed state, a hedge sent, a WebSocket
/// message — through the one extensible path of the event stream, ``CallEvent/Kind/capabilityEvent(_:)``.
///
/// A listener reads a module's events back by their type:
///
/// ```swift
/// func handle(_ event: CallEvent) {
///     if case .hedgeStarted(let hedge, _) = event.kind.capabilityEvent(as: ResilienceEvent.self) {
///         hedges.increment()
///     }
/// }
/// ```
///
/// Like every event, it carries no header, no body and no credential.
public protocol CapabilityEvent: Sendable, Equatable {}

/// A ``CapabilityEvent`` as ``CallEvent/Kind/capabilityEvent(_:)`` holds it: equal to another of the same type with
/// equal values.
public struct ReportedCapabilityEvent: Sendable, Equatable, CustomStringConvertible {
    /// The capability's event.
    public let event: any CapabilityEvent

    /// `event`, to report.
    public init(_ event: some CapabilityEvent) { self.event = event }

    /// Both the same type, with equal values.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.event.isEqual(to: rhs.event) }

    /// The event, as its type describes it.
    public var description: String { String(describing: event) }
}

extension CapabilityEvent {
    /// The same type — not a subclass of it, which would make the comparison one-sided — with an equal value.
    fileprivate func isEqual(to other: any CapabilityEvent) -> Bool {
        type(of: other) == Self.self && (other as? Self) == self
    }
}

extension CallEvent.Kind {
    /// The capability event `event`, as a call's stage reports it: `.capability(ResilienceEvent.hedgeStarted(…))`.
    public static func capability(_ event: some CapabilityEvent) -> Self {
        .capabilityEvent(ReportedCapabilityEvent(event))
    }

    /// This kind's capability event when it is one of type `type`, else `nil`.
    public func capabilityEvent<Event: CapabilityEvent>(as type: Event.Type) -> Event? {
        guard case .capabilityEvent(let reported) = self else { return nil }
        return reported.event as? Event
    }
}
