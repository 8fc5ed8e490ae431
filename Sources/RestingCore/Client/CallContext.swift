/// What a call's work gets from the client running it: where its transfer progress goes, and where its stages
/// report their events (`nil` when the client has no listener).
package struct CallContext: Sendable {
    let progress: ProgressHandler
    let events: CallEventReporter?

    /// A call whose progress nobody follows (`send`: no promise to report it to).
    package static func unobserved(events: CallEventReporter?) -> CallContext {
        CallContext(progress: { _ in }, events: events)
    }
}
