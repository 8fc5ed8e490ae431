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
        // Read once, when the call starts: reconnections go where the first stream came from.
        let baseUrl = baseUrl ?? self.baseUrl
        let hooks = CancellationHooks()
        let check = statusCheck(for: request.endpoint)
        return call(cancellationHooks: hooks) { context in
            let (head, stream) = try await self.openStream(
                self.streamingRequest(
                    request, baseUrl: baseUrl, continuing: continuing, extraHeaders: [], events: context.events),
                check: check, progress: context.progress)
            return try self.streamedResponse(
                head: head, stream: stream, request: request, as: type, baseUrl: baseUrl, continuing: continuing,
                check: check, hooks: hooks, events: context.events)
        }
    }

    /// The response of a streamed call whose head has arrived: its body `type` reading `stream`, reconnecting
    /// through a ``StreamedCall``.
    ///
    /// Synchronous, and apart from the closure above, for memory: an async function's locals live in its task's
    /// frame for as long as it is suspended, and the closure waits for the head — with ten thousand streams opening
    /// at once, everything built here would be held ten thousand times over, and freed in scattered pieces after.
    private func streamedResponse<RequestType, ResponseType>(
        head: HTTPDataResponse, stream: ResponseBodyStream, request: RestingRequest<RequestType, ResponseType>,
        as type: any StreamingResponseBody.Type, baseUrl: String, continuing: (@Sendable (inout HTTPRequest) -> Void)?,
        check: StatusCheck, hooks: CancellationHooks, events: CallEventReporter?
    ) throws -> RestingResponse<ResponseType> {
        let call = StreamedCall(registry: calls, ending: events.map { ($0, head.status) })
        let reconnector = StreamedCall.Reconnector(call: call) { headers in
            try await self.holdingASlot(events: events) {
                let (response, stream) = try await self.openStream(
                    self.streamingRequest(
                        request, baseUrl: baseUrl, continuing: continuing, extraHeaders: headers, events: events),
                    check: check, progress: { _ in })
                return response.status == 204 ? nil : stream
            }
        }
        call.attach(stream)
        hooks.add { [weak call] in call?.cancel() }
        let streamed = StreamedBody(
            stream: stream, decoder: request.endpoint.decoder ?? decoder, reconnector: reconnector)
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

    /// Sends `request` (a ``streamingRequest(_:baseUrl:continuing:extraHeaders:events:)``); answers with an accepted head
    /// (its body emptied) and the body as a stream, or fails as `check` says. Not generic, and its work after the
    /// exchange in helpers, to keep this frame — held while the head is awaited — small.
    private func openStream(_ request: HTTPRequest, check: StatusCheck, progress: @escaping ProgressHandler)
        async throws -> (head: HTTPDataResponse, body: ResponseBodyStream)
    {
        let response = try await exchange(request, progress: progress)
        try await check.verify(response)
        return Self.split(response)
    }

    /// `request` converted, asking for its response to stream.
    private func streamingRequest<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String,
        continuing: (@Sendable (inout HTTPRequest) -> Void)?, extraHeaders: [(name: String, value: String)],
        events: CallEventReporter?
    ) throws -> HTTPRequest {
        var httpRequest = try converted(request, baseUrl: baseUrl, continuing: continuing, events: events)
        httpRequest.responseStreaming = httpRequest.responseStreaming ?? ResponseStreaming()
        for header in extraHeaders { httpRequest.headers.replaceOrAdd(name: header.name, value: header.value) }
        try httpRequest.headers.validate()
        return httpRequest
    }

    /// The head (its body emptied) and the body as a stream — from memory when a transport or a mock that does not
    /// stream answered with a whole body.
    @inline(never)
    private static func split(_ response: HTTPDataResponse) -> (head: HTTPDataResponse, body: ResponseBodyStream) {
        var head = response
        let stream = head.body.makeStream()
        head.body = .empty
        return (head, stream)
    }
}
