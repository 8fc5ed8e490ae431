#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The ending of `perform` and `send` for a body read whole: decoded as the endpoint says.
package struct DecodedResponse<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    package init() {}

    nonisolated(nonsending) package func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> RestingResponse<ResponseType> {
        // Most bodies are read whole already and small enough to decode here: then no async frame is made for the
        // working (1,648 bytes when it was inlined here, which took each call's task a slab of its own). Decided here
        // rather than by an optional result, which would make this function look the response's type metadata up.
        if response.body.stream == nil, call.client.decodesAtOnce(response.body.data?.count ?? 0) {
            return try Self.finishedAtOnce(response, of: call, events: events)
        }
        return try await finishReading(response, of: call, events: events)
    }

    /// The response of a body read whole that decodes on the call's executor.
    @inline(never)
    private static func finishedAtOnce(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) throws -> RestingResponse<ResponseType> {
        // The endpoint's fields read in place, not the endpoint copied (see `RestingRequest.endpoint`).
        let body = try ResponseBodyDecoding.decode(
            ResponseType.self, from: response.body.data ?? Data(),
            decoder: call.request.endpoint.decoder ?? call.client.decoder,
            reading: call.request.endpoint.responseReading, envelope: call.request.endpoint.envelope)
        return finished(response, body: body, events: events)
    }

    /// A body a mock or a custom transport streamed (read whole first), or one large enough to decode off the
    /// call's executor.
    @inline(never)
    private func finishReading(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> RestingResponse<ResponseType> {
        let response = try await response.buffered()
        let body = try await call.client.decode(
            ResponseType.self, from: response.body.data ?? Data(),
            decoder: call.request.endpoint.decoder ?? call.client.decoder,
            reading: call.request.endpoint.responseReading, envelope: call.request.endpoint.envelope)
        return Self.finished(response, body: body, events: events)
    }

    /// The call's response with its decoded `body`, its end reported. Always inlined: its caller has looked the
    /// response's type metadata up already, to return it, and a call would look it up again.
    @inline(__always)
    private static func finished(
        _ response: HTTPDataResponse, body: ResponseType, events: CallEventReporter?
    ) -> RestingResponse<ResponseType> {
        events?.report(.callEnded(status: response.status))
        return RestingResponse(
            status: response.status, headers: response.headers, body: body, url: response.url,
            metrics: response.metrics, cacheStatus: response.cacheStatus, trailers: response.trailers)
    }
}
