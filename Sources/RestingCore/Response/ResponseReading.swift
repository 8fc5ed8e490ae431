#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an endpoint's responses are read, worked out once when the endpoint is made rather than by a dynamic
/// cast on every call. (`@unchecked`: it holds metatypes, immutable, which this protocol does not mark.)
package struct ResponseReading: @unchecked Sendable {
    /// Set when the response type is a stream (`ResponseLines`, `ServerSentEvents`, …).
    let streaming: (any StreamingResponseBody.Type)?
    /// Set when the response type reads the body itself (`Data`, ``Nothing``, optionals).
    let selfDecoding: (any SelfDecodingResponseBody.Type)?
    /// Whether the request asks for JSON (`Accept: application/json`).
    let expectsJSON: Bool

    init<T>(_ type: T.Type) {
        streaming = T.self as? any StreamingResponseBody.Type
        selfDecoding = T.self as? any SelfDecodingResponseBody.Type
        expectsJSON = selfDecoding?.expectsJSON ?? true
    }
}
