#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingClient {
    /// Sends the request and returns its response, in the calling task: the pipeline of ``perform(_:)`` without
    /// a promise, for code that only awaits the result.
    ///
    /// ```swift
    /// let post = try await client.send(RestingRequest(endpoint: getPost, pathVariables: ["post_id": 1])).body
    /// ```
    ///
    /// A promise runs its call in a task of its own, so that it can be chained, observed and cancelled apart from
    /// whoever awaits it; `send` starts no task, which makes a small call measurably cheaper (the README's
    /// performance section). Everything else is ``perform(_:)``'s: the converter, the interceptors, the status
    /// check and decoding; the pipeline runs on the transport's executor; the call waits for a
    /// ``ConcurrencyMode`` slot and counts for ``cancelAll()``. An endpoint whose response streams goes through
    /// ``perform(_:)`` — its body outlives the call.
    ///
    /// **Cancellation.** Cancelling the calling task cancels the call, which fails with
    /// ``RestingError/cancelled``. Because the call runs in your task, ``cancelAll()`` cancels that task, as
    /// cancelling it yourself would: what the task does after the failed call sees it cancelled. Use
    /// ``perform(_:)`` when ``cancelAll()`` must leave the awaiting task alone, and for progress or chaining.
    ///
    /// The result of a request whose response type is ``Nothing`` may be left unused.
    public func send<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>
    ) async throws -> RestingResponse<ResponseType> {
        try await decodedResponse(to: request)
    }

    /// Sends a request whose response type is ``Nothing``: its result, the status and headers of the answer, may be
    /// left unused (`try await client.send(deleteRequest)`).
    @discardableResult
    public func send<RequestType>(_ request: RestingRequest<RequestType, Nothing>) async throws
        -> RestingResponse<Nothing>
    {
        try await decodedResponse(to: request)
    }

    @inline(__always)
    private func decodedResponse<RequestType, ResponseType>(
        to request: RestingRequest<RequestType, ResponseType>
    ) async throws -> RestingResponse<ResponseType> {
        guard request.endpoint.responseReading.streaming == nil else { return try await perform(request).value }
        return try await inCallingTask { events in
            try await Call(self, request).respond(DecodedResponse(), .unobserved(events: events))
        }
    }

    /// A request built whole elsewhere (an OpenAPI operation, by generated code) as one call of this client: it
    /// passes the interceptors, the redirect link and the transport like any call, is counted for ``cancelAll()``
    /// and ``shutdown(gracePeriod:)`` and waits for a slot of the concurrency limit, in the calling task. Any status
    /// is a response; a request with ``HTTPRequest/responseStreaming`` set comes back with its body streaming.
    package func send(_ request: HTTPRequest) async throws -> HTTPDataResponse {
        // Validated where the chain hands it to the transport, as every call is.
        try await inCallingTask { events in
            var request = request
            request.events = events
            return try await exchange(request, progress: { _ in }).ending(events)
        }
    }

    /// Runs `work` as one call of this client in the calling task: counted for ``cancelAll()`` (which cancels the
    /// task) and ``shutdown(gracePeriod:)``, in a slot of the concurrency limit, on the transport's executor.
    package func inCallingTask<Value: Sendable>(
        _ work: @Sendable (CallEventReporter?) async throws -> Value
    ) async throws -> Value {
        try refuseIfMisconfigured()
        let canceller = CurrentTaskCanceller()
        guard let id = calls.add(cancel: canceller.cancel) else {
            canceller.detach()
            throw RestingError.shutDown
        }
        defer {
            canceller.detach()
            calls.settle(id)
        }
        let events = eventReporter(for: id)
        return try await withTaskExecutorPreference(executor) {
            try await run(id, events: events) {
                try Task.checkCancellation()  // a task cancelled already starts no transfer
                return try await work(events)
            }
        }
    }
}
