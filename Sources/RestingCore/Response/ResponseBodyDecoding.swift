#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response type that reads the body itself instead of through the JSON decoder.
protocol SelfDecodingResponseBody {
    static func decode(responseBody: Data, decoder: JSONDecoder) throws -> Self
    static var expectsJSON: Bool { get }
}

extension Nothing: SelfDecodingResponseBody {
    /// The body is ignored, whatever it holds.
    static func decode(responseBody: Data, decoder: JSONDecoder) -> Nothing { Nothing() }
    static var expectsJSON: Bool { false }
}

extension Data: SelfDecodingResponseBody {
    static func decode(responseBody: Data, decoder: JSONDecoder) -> Data { responseBody }
    static var expectsJSON: Bool { false }
}

extension Optional: SelfDecodingResponseBody where Wrapped: Decodable {
    /// `nil` exactly when the body is empty; otherwise the wrapped type (a JSON `null` is `nil` too).
    static func decode(responseBody: Data, decoder: JSONDecoder) throws -> Wrapped? {
        guard !responseBody.isEmpty else { return nil }
        if Wrapped.self is any SelfDecodingResponseBody.Type {
            return try ResponseBodyDecoding.decodeValue(
                Wrapped.self, from: responseBody, decoder: decoder,
                reading: ResponseReading(Wrapped.self))
        }
        return try decoder.decode(Wrapped?.self, from: responseBody)
    }

    static var expectsJSON: Bool { ResponseBodyDecoding.expectsJSON(Wrapped.self) }
}

/// Reads a response body as an endpoint's response type.
package enum ResponseBodyDecoding {
    package static func decode<T: Decodable>(
        _ type: T.Type, from body: Data, decoder: JSONDecoder, reading: ResponseReading? = nil
    ) throws(RestingError) -> T {
        do {
            return try decodeValue(type, from: body, decoder: decoder, reading: reading ?? ResponseReading(T.self))
        } catch {
            throw .decodingFailed(type: String(describing: T.self), underlying: error, body: body)
        }
    }

    /// The value inside `envelope` when there is one; an empty body is still an optional's `nil` (a 304), not an
    /// envelope missing, and ``Nothing`` reads no body at all.
    static func decode<T: Decodable & Sendable>(
        _ type: T.Type, from body: Data, decoder: JSONDecoder, reading: ResponseReading, envelope: EnvelopeReading<T>?
    ) throws(RestingError) -> T {
        // `Nothing` reads no body, in an envelope or not.
        guard let envelope, T.self != Nothing.self, !(body.isEmpty && reading.selfDecoding != nil) else {
            return try decode(type, from: body, decoder: decoder, reading: reading)
        }
        do {
            return try envelope.read(body, decoder)
        } catch {
            throw .decodingFailed(type: String(describing: T.self), underlying: error, body: body)
        }
    }

    static func decodeValue<T: Decodable>(
        _ type: T.Type, from body: Data, decoder: JSONDecoder, reading: ResponseReading
    ) throws -> T {
        if let selfDecoding = reading.selfDecoding,
            let value = try selfDecoding.decode(responseBody: body, decoder: decoder) as? T
        {
            return value
        }
        return try decoder.decode(T.self, from: body)
    }

    static func expectsJSON<T>(_ type: T.Type) -> Bool {
        (T.self as? any SelfDecodingResponseBody.Type)?.expectsJSON ?? true
    }
}
