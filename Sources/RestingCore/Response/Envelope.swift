#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an endpoint reads its value out of the envelope its API wraps every body in (`{"data": …}`), set with
/// ``Endpoint/unwrapping(_:)`` or ``Endpoint/unwrapping(_:_:)``.
package struct EnvelopeReading<Value: Sendable>: Sendable {
    /// The value inside `body`, decoded with `decoder`.
    package let read: @Sendable (_ body: Data, _ decoder: JSONDecoder) throws -> Value

    /// The value at `keyPath` — member names joined by dots, as they read after the decoder's key strategy.
    package init(keyPath: String) where Value: Decodable {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        read = { body, decoder in
            guard !keys.contains(where: \.isEmpty) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "the envelope key path '\(keyPath)' has an empty member"))
            }
            return try EnvelopeKeys.$current.withValue(keys) {
                try decoder.decode(KeyedEnvelope<Value>.self, from: body).value
            }
        }
    }

    /// The value `unwrap` takes out of a decoded `Envelope`.
    init<Envelope: Decodable & Sendable>(_ envelope: Envelope.Type, _ unwrap: @escaping @Sendable (Envelope) -> Value) {
        read = { body, decoder in unwrap(try decoder.decode(Envelope.self, from: body)) }
    }
}

/// The member names a ``KeyedEnvelope`` walks, for the decode that runs now: `Decodable.init(from:)` takes no
/// argument, and a decoder's `userInfo` is shared by every call using it.
enum EnvelopeKeys {
    @TaskLocal static var current: [String] = []
}

/// A body whose value sits at ``EnvelopeKeys/current``.
struct KeyedEnvelope<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        let keys = EnvelopeKeys.current
        guard let last = keys.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: MemberKey.self)
        for key in keys.dropLast() {
            container = try container.nestedContainer(keyedBy: MemberKey.self, forKey: MemberKey(key))
        }
        value = try container.decode(Value.self, forKey: MemberKey(last))
    }
}

/// A JSON object's member, by name.
struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
