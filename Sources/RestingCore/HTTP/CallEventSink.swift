/// Where the stages of one call report its events (a ``CallEvent``), carried by each of the call's requests: the
/// client makes one per call when it has a listener. The seam every stage reports through — the chain, its
/// interceptors, the transport's measurements — without knowing who listens.
package protocol CallEventSink: Sendable {
    /// Reports `kind`, unless the call has ended; a terminal `kind` ends it.
    func report(_ kind: CallEvent.Kind)

    /// Sends `request` through `next`, reporting the exchange: its start, what the transport measured, its head,
    /// its body's end or its failure.
    func observeExchange(
        _ request: HTTPRequest, _ next: (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse
}
