import Foundation

/// Collects parameters in the order they are encoded.
final class QueryOutput {
    var items: [URLQueryItem] = []
}

/// The `Encoder` behind ``URLQueryEncoder``: each instance stands at one key path (`["page", "size"]`).
struct QueryValueEncoder: Encoder {
    let options: URLQueryEncoder
    let output: QueryOutput
    /// Rendered key components; an empty component is a `[]` array element.
    let path: [String]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func child(_ component: String?, key: any CodingKey) -> QueryValueEncoder {
        QueryValueEncoder(
            options: options, output: output, path: component.map { path + [$0] } ?? path,
            codingPath: codingPath + [key])
    }

    func write(_ value: String) throws {
        // An array at the top level has no name to put its elements under.
        guard let root = path.first, !(codingPath.first is QueryIndexKey) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "query parameters need a keyed top-level value (a struct or a dictionary)"))
        }
        let name = root + path.dropFirst().map { "[\($0)]" }.joined()
        output.items.append(URLQueryItem(name: name, value: value))
    }

    /// Writes scalars and Foundation value types directly; everything else encodes itself through `self`.
    func encodeValue(_ value: some Encodable) throws {
        switch value {
        case let string as String: try write(string)
        case let bool as Bool:
            try write(options.boolEncoding == .literal ? (bool ? "true" : "false") : (bool ? "1" : "0"))
        case let integer as any BinaryInteger: try write("\(integer)")
        case let number as any BinaryFloatingPoint: try write("\(number)")
        case let decimal as Decimal: try write(decimal.description)
        case let url as URL: try write(url.absoluteString)
        case let date as Date:
            if let text = try options.string(from: date) { try write(text) } else { try date.encode(to: self) }
        case let data as Data:
            if let text = try options.string(from: data) { try write(text) } else { try data.encode(to: self) }
        case let dictionary as [String: any Encodable]:
            try encodeSorted(dictionary.map { ($0.key, $0.value) })
        case let dictionary as [Int: any Encodable]:
            try encodeSorted(dictionary.sorted { $0.key < $1.key }.map { ("\($0.key)", $0.value) })
        default:
            try value.encode(to: self)
        }
    }

    private func encodeSorted(_ entries: [(String, any Encodable)]) throws {
        for (key, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            try child(key, key: QueryCodingKey(key)).encodeValue(value)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedQueryContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedQueryContainer(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueQueryContainer(encoder: self) }
}

struct QueryCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
}

/// The coding key of an array element.
struct QueryIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

struct KeyedQueryContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: QueryValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(_ key: Key) -> QueryValueEncoder {
        encoder.child(encoder.options.encodedKey(key.stringValue), key: key)
    }

    mutating func encodeNil(forKey key: Key) throws { try child(key).write("") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.child("super", key: QueryCodingKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

struct UnkeyedQueryContainer: UnkeyedEncodingContainer {
    let encoder: QueryValueEncoder
    private(set) var count = 0
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: QueryValueEncoder) { self.encoder = encoder }

    private mutating func nextElement() -> QueryValueEncoder {
        defer { count += 1 }
        let component: String? =
            switch encoder.options.arrayEncoding {
            case .brackets: ""
            case .indexed: "\(count)"
            case .repeatedKey: nil
            }
        return encoder.child(component, key: QueryIndexKey(intValue: count))
    }

    mutating func encodeNil() throws { try nextElement().write("") }
    mutating func encode<T: Encodable>(_ value: T) throws { try nextElement().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextElement().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nextElement().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nextElement() }
}

struct SingleValueQueryContainer: SingleValueEncodingContainer {
    let encoder: QueryValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try encoder.write("") }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
