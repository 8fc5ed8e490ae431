#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingClient {
    /// The most of an unaccepted streamed response's body kept in its ``HTTPError``.
    static let streamedErrorBodyLimit = 1024 * 1024

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
        return call(cancellationHooks: hooks) { progress in
            let (response, stream) = try await self.openStream(
                request, baseUrl: baseUrl, continuing: continuing, extraHeaders: [], progress: progress)
            let call = StreamedCall(registry: self.calls) { headers in
                try await self.holdingASlot {
                    let (response, stream) = try await self.openStream(
                        request, baseUrl: baseUrl, continuing: continuing, extraHeaders: headers, progress: { _ in })
                    return response.status == 204 ? nil : stream
                }
            }
            call.attach(stream)
            hooks.add { [weak call] in call?.cancel() }
            let streamed = StreamedBody(
                stream: stream, decoder: request.endpoint.decoder ?? self.decoder, reconnector: call)
            guard let body = type.init(streamedBody: streamed) as? ResponseType else {
                throw RestingError.decodingFailed(
                    type: String(describing: ResponseType.self),
                    underlying: DecodingError.typeMismatch(
                        ResponseType.self, .init(codingPath: [], debugDescription: "not a stream")),
                    body: Data())
            }
            return RestingResponse(
                status: response.status, headers: response.headers, body: body, url: response.url,
                metrics: response.metrics, cacheStatus: response.cacheStatus)
        }
    }

    /// Sends `request` asking for a streamed body; answers with an accepted head (its body emptied) and the body
    /// as a stream, or fails with the status.
    private func openStream<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String,
        continuing: (@Sendable (inout HTTPRequest) -> Void)?, extraHeaders: [(name: String, value: String)],
        progress: @escaping ProgressHandler
    ) async throws -> (head: HTTPDataResponse, body: ResponseBodyStream) {
        var httpRequest = try requestConverter.toHTTPRequest(request, baseUrl: baseUrl)
        continuing?(&httpRequest)
        httpRequest.responseStreaming = httpRequest.responseStreaming ?? ResponseStreaming()
        for header in extraHeaders { httpRequest.headers.replaceOrAdd(name: header.name, value: header.value) }
        try httpRequest.headers.validate()
        var response = try await exchange(httpRequest, progress: progress)
        guard acceptedStatusCodes.contains(response.status) else {
            response.body = ResponseBody(try await response.body.collect(upTo: Self.streamedErrorBodyLimit))
            throw RestingError.httpError(HTTPError(response))
        }
        // A transport or a mock that does not stream answers with a whole body: it streams from memory.
        let stream = response.body.makeStream()
        response.body = .empty
        return (response, stream)
    }
}
