/// How an observed exchange ended.
package struct ExchangeEnding: Sendable {
    package enum Outcome: Sendable {
        /// No response: the rest of the chain threw.
        case failed(any Error)
        /// The response, its body whole.
        case completed
        /// The reader left the streamed body before its end (its choice, not a failure).
        case bodyLeft
        /// The streamed body was cut short.
        case bodyFailed(RestingError)
    }

    package let outcome: Outcome
    /// The response's head (its body emptied when streamed), unless the exchange failed.
    package let response: HTTPDataResponse?
    /// The body's bytes that passed (0 when the exchange failed).
    package let bodyBytes: Int64
    /// From the exchange's start to its response's head (`nil` when the exchange failed).
    package let headElapsed: Duration?
    /// From the exchange's start to its end: for a streamed body, to the body's end.
    package let duration: Duration
    /// Whether the body streamed past the observer.
    package let streamed: Bool

    init(
        _ outcome: Outcome, response: HTTPDataResponse? = nil, bodyBytes: Int64 = 0, headElapsed: Duration? = nil,
        duration: Duration, streamed: Bool = false
    ) {
        self.outcome = outcome
        self.response = response.map { head in
            var head = head
            if streamed { head.body = .empty }
            return head
        }
        self.bodyBytes = bodyBytes
        self.headElapsed = headElapsed
        self.duration = duration
        self.streamed = streamed
    }

    /// The failure, if the exchange or its body failed; `nil` when it completed or the reader left.
    package var error: (any Error)? {
        switch outcome {
        case .failed(let error): error
        case .bodyFailed(let error): error
        case .completed, .bodyLeft: nil
        }
    }

    /// OpenTelemetry's `error.type` for the exchange, or `nil` when it succeeded: its failure's type (`timedOut`,
    /// `cancelled`, …), a cut body's, or — a status of 400 or more being a client's error — the status. A reader
    /// leaving a streamed body early is its choice, not an error. One rule for the logs, metrics and traces.
    package var errorType: String? {
        switch outcome {
        case .failed(let error): RestingError.errorType(of: error)
        case .bodyFailed(let error): error.errorType
        case .completed, .bodyLeft: response?.errorType
        }
    }
}

extension HTTPDataResponse {
    /// OpenTelemetry's `error.type` for a response a client received: its status when 400 or more, else `nil`.
    package var errorType: String? { status >= 400 ? String(status) : nil }
}
