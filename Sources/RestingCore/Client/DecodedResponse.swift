#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The ending of `perform` and `send` for a body read whole: decoded as the endpoint says.
package struct DecodedResponse<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    package init() {}

    package func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> RestingResponse<ResponseType> {
        // A mock or a custom transport may answer with a stream even so: read it whole.
        let response = try await response.buffered()
        let endpoint = call.request.endpoint
        let body = try await call.client.decode(
            ResponseType.self, from: response.body.data ?? Data(), decoder: endpoint.decoder ?? call.client.decoder,
            reading: endpoint.responseReading, envelope: endpoint.envelope)
        events?.report(.callEnded(status: response.status))
        return RestingResponse(
            status: response.status, headers: response.headers, body: body, url: response.url,
            metrics: response.metrics, cacheStatus: response.cacheStatus, trailers: response.trailers)
    }
}
