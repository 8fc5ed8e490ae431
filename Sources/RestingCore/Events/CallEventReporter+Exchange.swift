/// The pipeline's own watch on each exchange it hands the transport: what the transport did, as events.
extension CallEventReporter: CallEventSink, ExchangeObserver {
    package func observeExchange(
        _ request: HTTPRequest, _ next: (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        try await observe(request, proceed: next)
    }

    package func willSend(_ request: inout HTTPRequest) -> Void? {
        report(
            .exchangeStarted(
                method: request.method, url: RedactionPolicy.default.url(request.url),
                attempt: request.attributes.attempt))
        return ()
    }

    package func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ observation: Void
    ) {
        // A transport reports what it measured through the response's metrics: the same seam for every transport.
        let metrics = response.metrics
        if let metrics, metrics.reusedConnection != nil || metrics.protocolVersion != nil {
            report(
                .connectionAcquired(
                    CallEvent.ConnectionDetails(
                        reused: metrics.reusedConnection, protocolVersion: metrics.protocolVersion,
                        nameLookup: metrics.nameLookup, connect: metrics.connect,
                        tlsHandshake: metrics.tlsHandshake)))
        }
        report(.requestSent(bytes: metrics?.bytesSent))
        report(.responseHeadReceived(status: response.status, timeToFirstByte: metrics?.timeToFirstByte))
    }

    package func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ observation: Void) {
        switch ending.outcome {
        case .failed(let error): report(.exchangeFailed(errorType: RestingError.errorType(of: error)))
        case .completed: report(.responseBodyEnded(bytes: ending.bodyBytes, complete: true))
        case .bodyLeft, .bodyFailed: report(.responseBodyEnded(bytes: ending.bodyBytes, complete: false))
        }
    }
}
