/// Something that watches the exchanges passing one point of the chain: the logging, swift-log, metrics and tracing
/// interceptors, the event monitor, and the pipeline's own event reporting. ``observe(_:proceed:)`` is the one place
/// that times an exchange, catches its failure and sees a streamed body end; an observer only says what to do at
/// each moment.
package protocol ExchangeObserver: Sendable {
    /// What an observer keeps from an exchange's start to its end (a span, a log summary, dimensions).
    associatedtype Observation: Sendable

    /// Called as `request` passes, before the rest of the chain; may change it (a trace context's headers).
    /// `nil` leaves this exchange unobserved.
    func willSend(_ request: inout HTTPRequest) -> Observation?

    /// Runs the rest of the chain; by default just that (tracing runs it with its span current).
    func proceed(
        _ observation: Observation, _ next: () async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse

    /// A response's head arrived, `elapsed` after ``willSend(_:)``; by default nothing is done.
    func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ observation: Observation)

    /// The exchange ended: failed before a response, or its response's body ended (at once for a body in memory).
    func didEnd(_ ending: ExchangeEnding, for request: HTTPRequest, _ observation: Observation)
}

extension ExchangeObserver {
    package func proceed(
        _ observation: Observation, _ next: () async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        try await next()
    }

    package func didReceive(
        _ response: HTTPDataResponse, for request: HTTPRequest, after elapsed: Duration, _ observation: Observation
    ) {}

    /// Sends `request` on through `next`, telling this observer of its start, its head and its end. A streamed
    /// body is handed on wrapped, counted as the reader takes it; its end is reported however it comes — whole,
    /// cut, left by the reader, or dropped unread.
    package func observe(
        _ request: HTTPRequest, proceed next: (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        var request = request
        guard let observation = willSend(&request) else { return try await next(request) }
        let sent = request
        let started = ContinuousClock.now
        var response: HTTPDataResponse
        do {
            response = try await proceed(observation) { try await next(sent) }
        } catch {
            didEnd(ExchangeEnding(.failed(error), duration: .now - started), for: sent, observation)
            throw error
        }
        let headElapsed = ContinuousClock.now - started
        didReceive(response, for: sent, after: headElapsed, observation)
        guard let stream = response.body.stream else {
            didEnd(
                ExchangeEnding(
                    .completed, response: response, bodyBytes: Self.bodyBytes(of: response, for: sent),
                    headElapsed: headElapsed, duration: .now - started),
                for: sent, observation)
            return response
        }
        response.body = ResponseBody(
            stream.counted { [response] bytes, error in
                let outcome: ExchangeEnding.Outcome =
                    switch error {
                    case nil: .completed
                    case .cancelled?: .bodyLeft
                    case let error?: .bodyFailed(error)
                    }
                didEnd(
                    ExchangeEnding(
                        outcome, response: response, bodyBytes: bytes, headElapsed: headElapsed,
                        duration: .now - started, streamed: true),
                    for: sent, observation)
            })
        return response
    }
}

extension ExchangeObserver {
    /// The bytes of `response`'s body, which is in memory — or, for a download's 2xx, in the target's file.
    private static func bodyBytes(of response: HTTPDataResponse, for request: HTTPRequest) -> Int64 {
        if let target = request.downloadTarget, response.isSuccessful {
            return max(0, (FileIO.size(of: target.file) ?? target.offset) - target.offset)
        }
        return Int64(response.body.data?.count ?? 0)
    }
}
