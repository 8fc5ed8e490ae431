#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One call of a ``RestingClient``: the stages every call passes, in order — ``respond(_:_:)`` is the function to read
/// first — and the request they start from. What `perform`, `send`, a streamed call, a download, a poll round and a
/// WebSocket handshake do differently is their ``CallEnding``; pages and offline replays are `perform` from another
/// base URL, reconnections a streamed call's stages again.
///
/// Around ``respond(_:_:)``, ``RestingClient/run(_:events:_:)`` holds the call's slot of the concurrency limit and its
/// registration for ``RestingClient/cancelAll()``, and reports its failure; `perform` runs it in a promise's task
/// (``RestingClient/call(_:ending:cancellationHooks:)``), `send` in the caller's.
///
/// Its helpers are not inlined into it, on purpose: ``respond(_:_:)`` waits for the response, and everything its
/// frame holds is held for that long by every call in flight (the Performance article, "What a waiting call holds";
/// `CallFootprintTests` guard it).
package struct Call<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: Sendable {
    package let client: RestingClient
    package let request: RestingRequest<RequestType, ResponseType>
    /// The base URL the request is converted against: the client's when the call starts, unless a page or a replay
    /// continues a call that had another.
    let baseUrl: String
    /// Adjusts the converted request (a next page's URL).
    let continuing: (@Sendable (inout HTTPRequest) -> Void)?

    package init(
        _ client: RestingClient, _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String? = nil,
        continuing: (@Sendable (inout HTTPRequest) -> Void)? = nil
    ) {
        self.client = client
        self.request = request
        self.baseUrl = baseUrl ?? client.baseUrl
        self.continuing = continuing
    }

    /// Every call's stages, in order.
    ///
    /// Inlined into the closure that starts the call's task (``RestingClient/call(_:ending:cancellationHooks:)``):
    /// a waiting call then holds one generic frame, and below it only the chain's, which are not generic — a frame
    /// of its own here cost a slab of task memory per waiting call (the Performance article, "What a waiting call
    /// holds").
    @inline(__always)
    package func respond<Ending: CallEnding>(_ ending: Ending, _ context: CallContext) async throws -> Ending.Value
    where Ending.RequestType == RequestType, Ending.ResponseType == ResponseType {
        // 1. Conversion: path template, providers, query / JSON / form / multipart body; then what the ending asks.
        let converted = try converted(for: ending, events: context.events)
        // 2. The chain: application interceptors → redirect link → network interceptors → credential boundary →
        //    transport. Every status is a response here; a failure is the ending's to clean up after.
        let response: HTTPDataResponse
        do {
            response = try await client.exchange(converted, progress: ending.progress(context.progress))
        } catch {
            ending.exchangeFailed(error)
            throw error
        }
        // 3. The status check — after an answer some responses get first (a download already whole, a poll told to
        //    come back later).
        if let early = try ending.answer(beforeCheck: response, events: context.events) { return early }
        try await verify(response, for: ending)
        // 4. The ending: decode, stream, file.
        return try await ending.finish(response, of: self, events: context.events)
    }

    /// The request converted against ``baseUrl``, adjusted by ``continuing`` and by `ending`, reporting to `events`.
    @inline(never)
    private func converted<Ending: CallEnding>(for ending: Ending, events: CallEventReporter?) throws -> HTTPRequest {
        var converted = try client.requestConverter.toHTTPRequest(request, baseUrl: baseUrl)
        continuing?(&converted)
        try ending.prepare(&converted)
        if let events {
            converted.events = events
            events.report(
                .requestConverted(method: converted.method, url: RedactionPolicy.default.url(converted.url)))
        }
        return converted
    }

    /// Throws what the call fails with unless `ending`'s status check accepts `response`.
    @inline(never)
    nonisolated(nonsending) private func verify<Ending: CallEnding>(_ response: HTTPDataResponse, for ending: Ending)
        async throws
    {
        // A 2xx the client accepts passes every ending's check: the common answer costs no check to build.
        if (200..<300).contains(response.status), client.acceptedStatusCodes.contains(response.status) { return }
        try await ending.statusCheck(client.statusCheck(for: request.endpoint)).verify(response)
    }
}

/// How a way of calling ends: what it adds to the request, the status check it applies, an answer some responses get
/// before that check, and the call's value from an accepted response — reporting the call's end to its events.
package protocol CallEnding: Sendable {
    associatedtype RequestType: Encodable & Sendable
    associatedtype ResponseType: Decodable & Sendable
    associatedtype Value: Sendable

    /// The converted request as this ending sends it; by default as it is.
    func prepare(_ request: inout HTTPRequest) throws
    /// The status check this ending applies, from the endpoint's and the client's; by default that one.
    func statusCheck(_ check: StatusCheck) -> StatusCheck
    /// The call's value for `response` before its status is checked, or `nil` (the default) to check it.
    func answer(beforeCheck response: HTTPDataResponse, events: CallEventReporter?) throws -> Value?
    /// The exchange failed; by default nothing to undo.
    func exchangeFailed(_ error: any Error)
    /// The call's progress handler as this ending reports progress; by default `handler` itself.
    func progress(_ handler: @escaping ProgressHandler) -> ProgressHandler
    /// The call's value from `response`, whose status `call` accepted; on the call's executor, without switching to
    /// another and back (a runtime call that takes the task's status lock: the Performance article, "Switching
    /// executors").
    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> Value
}

extension CallEnding {
    package func prepare(_ request: inout HTTPRequest) throws {}
    package func statusCheck(_ check: StatusCheck) -> StatusCheck { check }
    package func answer(beforeCheck response: HTTPDataResponse, events: CallEventReporter?) throws -> Value? { nil }
    package func exchangeFailed(_ error: any Error) {}
    package func progress(_ handler: @escaping ProgressHandler) -> ProgressHandler { handler }
}
