#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingClient {
    /// ``perform(_:)`` for an endpoint whose response type streams: resolves with the head, the body flowing.
    ///
    /// The call counts for ``cancelAll()`` and for the promise's `cancel()` until its body ends — across
    /// reconnections and the waits between them while a reconnecting reader holds it (``StreamedCall``) — not
    /// only until the head arrived; it holds a ``ConcurrencyMode`` slot while a head is awaited.
    func performStreaming<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, as type: any StreamingResponseBody.Type,
        baseUrl: String? = nil, continuing: (@Sendable (inout HTTPRequest) -> Void)? = nil
    ) -> ProgressablePromise<RestingResponse<ResponseType>> {
        let hooks = CancellationHooks()
        // Made when the call starts: reconnections go where the first stream came from.
        return call(
            Call(self, request, baseUrl: baseUrl, continuing: continuing),
            ending: StreamedResponse(type: type, hooks: hooks), cancellationHooks: hooks)
    }
}

/// The ending of a streamed call: the head, with the body `type` reading the stream and reconnecting through a
/// ``StreamedCall``, which keeps the call reachable until its last stream ends.
struct StreamedResponse<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    let type: any StreamingResponseBody.Type
    let hooks: CancellationHooks

    func prepare(_ request: inout HTTPRequest) throws {
        request.responseStreaming = request.responseStreaming ?? ResponseStreaming()
    }

    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> RestingResponse<ResponseType> {
        try streamedResponse(response, of: call, events: events)
    }

    /// Synchronous and never inlined, for memory: an async function's locals live in its task's frame for as long as
    /// it is suspended — with ten thousand streams opening at once, everything built here would be held ten
    /// thousand times over.
    @inline(never)
    private func streamedResponse(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) throws -> RestingResponse<ResponseType> {
        let (head, stream) = response.splitBody()
        let streamedCall = StreamedCall(registry: call.client.calls, ending: events.map { ($0, head.status) })
        let reconnector = StreamedCall.Reconnector(call: streamedCall) { headers in
            try await call.client.holdingASlot(events: events) {
                try await call.respond(ReopenedStream(extraHeaders: headers), .unobserved(events: events))
            }
        }
        streamedCall.attach(stream)
        hooks.add { [weak streamedCall] in streamedCall?.cancel() }
        let streamed = StreamedBody(
            stream: stream, decoder: call.request.endpoint.decoder ?? call.client.decoder, reconnector: reconnector)
        guard let body = type.init(streamedBody: streamed) as? ResponseType else {
            throw RestingError.decodingFailed(
                type: String(describing: ResponseType.self),
                underlying: DecodingError.typeMismatch(
                    ResponseType.self, .init(codingPath: [], debugDescription: "not a stream")),
                body: Data())
        }
        return RestingResponse(
            status: head.status, headers: head.headers, body: body, url: head.url, metrics: head.metrics,
            cacheStatus: head.cacheStatus)
    }
}

/// The ending of a streamed call's reconnection: the same stages with the reader's headers (`Last-Event-ID`), its
/// stream — or `nil` for a 204, the server's "do not come back".
struct ReopenedStream<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    let extraHeaders: [(name: String, value: String)]

    func prepare(_ request: inout HTTPRequest) throws {
        request.responseStreaming = request.responseStreaming ?? ResponseStreaming()
        for header in extraHeaders { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        try request.headers.validate()
    }

    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> ResponseBodyStream? {
        response.status == 204 ? nil : response.splitBody().body
    }
}

extension HTTPDataResponse {
    /// The head (its body emptied) and the body as a stream — from memory when a transport or a mock that does not
    /// stream answered with a whole body.
    func splitBody() -> (head: HTTPDataResponse, body: ResponseBodyStream) {
        var head = self
        let stream = head.body.makeStream()
        head.body = .empty
        return (head, stream)
    }
}
