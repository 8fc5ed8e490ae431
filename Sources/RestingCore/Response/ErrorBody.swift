#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An API's own error type, decoded from the body of a response whose status the call does not accept, that also
/// keeps that response: its status, headers and raw body, as the ``HTTPError`` it would otherwise have been.
///
/// Name the type on the client (``RestingClient/init(baseUrl:decoder:httpClient:requestConverter:interceptors:networkInterceptors:acceptedStatusCodes:errorBody:concurrency:maximumRedirects:eventListener:)``)
/// or on one endpoint (``Endpoint/decodingErrors(as:)``); conforming is optional — any `Error & Decodable` works —
/// and only adds the response:
///
/// ```swift
/// struct StorageError: HTTPErrorBody {
///     let errno: Int
///     let message: String
///     var response: HTTPError?  // set by the client; the body's JSON never fills it
/// }
///
/// } catch let error as StorageError where error.response?.status == 412 { … }
/// ```
public protocol HTTPErrorBody: Error, Decodable, Sendable {
    /// The response the error came in; the client sets it after decoding the body.
    var response: HTTPError? { get set }
}

/// How an unaccepted response becomes the app's error: its body decoded as the type the client or the endpoint
/// names, or `nil` when the body is not one (a proxy's HTML page), which leaves ``RestingError/httpError(_:)``.
package struct ErrorBodyDecoding: Sendable {
    let decode: @Sendable (_ error: HTTPError, _ decoder: JSONDecoder) -> (any Error)?

    init<Body: Error & Decodable & Sendable>(_ type: Body.Type) {
        decode = { error, decoder in
            guard let body = try? decoder.decode(Body.self, from: error.body) else { return nil }
            guard var carrying = body as? any HTTPErrorBody else { return body }
            carrying.response = error
            return carrying
        }
    }
}

/// Decodable so that an ``HTTPErrorBody``'s `response` needs no `CodingKeys`: a body never holds the response it came
/// in, so whatever the body has under `response` (usually nothing) decodes as an empty placeholder, and the client
/// replaces it with the real response right after decoding.
extension HTTPError: Decodable {
    /// An empty placeholder (status 0, no headers, no body), whatever `decoder` holds.
    public init(from decoder: any Decoder) {
        self.init(status: 0, headers: [:], body: Data(), url: nil)
    }
}
