#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One named value produced by ``FormFieldEncoder``, in encoding order.
package struct FormField: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        case text(String)
        /// Bytes that should travel as they are (multipart's `.raw` data strategy).
        case bytes(Data)
        case file(MultipartFile)
    }

    package var name: String
    package var value: Value
}

/// What differs between the query encoder and the multipart encoder; the walk over a value is shared.
package struct FormFieldOptions: Sendable {
    package var arrayEncoding: FormArrayEncoding
    package var boolAsNumber: Bool
    package var keyEncoding: FormKeyEncodingStrategy
    package var dateEncoding: FormDateEncodingStrategy
    /// The value for a `Data`, or `nil` to let `Data.encode(to:)` encode itself (an array of bytes).
    package var encodeData: @Sendable (Data) throws -> FormField.Value?

    package init(
        arrayEncoding: FormArrayEncoding, boolAsNumber: Bool, keyEncoding: FormKeyEncodingStrategy,
        dateEncoding: FormDateEncodingStrategy, encodeData: @escaping @Sendable (Data) throws -> FormField.Value?
    ) {
        self.arrayEncoding = arrayEncoding
        self.boolAsNumber = boolAsNumber
        self.keyEncoding = keyEncoding
        self.dateEncoding = dateEncoding
        self.encodeData = encodeData
    }
}

/// Flattens an `Encodable` value into named fields: nested values become `a[b]`, array elements `a[]`, `a[0]`
/// or a repeated `a`. Shared by `URLQueryEncoder` and ``MultipartFormDataEncoder``, which differ only in
/// their options and in what they do with the fields.
///
/// - Order is the order of encoding — a struct's fields in declaration order — and stable from run to run;
///   dictionaries, which have no order, are encoded with their keys sorted (the key strategy applies to
///   coding keys only, not to dictionary keys).
/// - An explicit `nil` (an `Optional` element of an array, `encodeNil`) is kept as an empty value, so
///   `[1, nil, 3]` keeps its three elements; a `nil` optional property is left out, like JSONEncoder does.
/// - An empty array or dictionary produces no field.
package enum FormFieldEncoder {
    /// The fields of `value`, which must encode as a keyed container (a struct or a dictionary).
    package static func fields(of value: some Encodable, options: FormFieldOptions) throws -> [FormField] {
        let output = FormFieldOutput()
        try FieldEncoder(options: options, output: output, path: [], codingPath: []).encodeValue(value)
        return output.fields
    }
}

/// Collects fields in the order they are encoded.
private final class FormFieldOutput {
    var fields: [FormField] = []
}

/// The `Encoder` behind ``FormFieldEncoder``: each instance stands at one key path (`["page", "size"]`).
private struct FieldEncoder: Encoder {
    let options: FormFieldOptions
    let output: FormFieldOutput
    /// Rendered key components; an empty component is a `[]` array element.
    let path: [String]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func child(_ component: String?, key: any CodingKey) -> FieldEncoder {
        FieldEncoder(
            options: options, output: output, path: component.map { path + [$0] } ?? path,
            codingPath: codingPath + [key])
    }

    func write(_ value: FormField.Value) throws {
        // An array or a scalar at the top level has no name to put its values under.
        guard let root = path.first, !(codingPath.first is IndexKey) else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription: "form fields need a keyed top-level value (a struct or a dictionary)"))
        }
        // A bracket inside a key would let a value (a dictionary key from user input, say) reshape the
        // nesting that servers read back — `x][role` becoming a `role` parameter — so it is refused.
        if let bad = path.first(where: { $0.contains("[") || $0.contains("]") }) {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription:
                        "the key \(bad.debugDescription) contains a bracket, which would change the field's nesting"))
        }
        let name = root + path.dropFirst().map { "[\($0)]" }.joined()
        output.fields.append(FormField(name: name, value: value))
    }

    func write(_ text: String) throws { try write(.text(text)) }

    /// Writes scalars and Foundation value types directly; everything else encodes itself through `self`.
    func encodeValue(_ value: some Encodable) throws {
        switch value {
        case let string as String: try write(string)
        case let bool as Bool: try write(options.boolAsNumber ? (bool ? "1" : "0") : (bool ? "true" : "false"))
        case let integer as any BinaryInteger: try write("\(integer)")
        case let number as any BinaryFloatingPoint: try write("\(number)")
        case let decimal as Decimal: try write(decimal.description)
        case let url as URL: try write(url.absoluteString)
        case let file as MultipartFile: try write(.file(file))
        case let date as Date:
            if let text = try options.dateEncoding.text(for: date) {
                try write(text)
            } else {
                try date.encode(to: self)
            }
        case let data as Data:
            if let field = try options.encodeData(data) { try write(field) } else { try data.encode(to: self) }
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
            try child(key, key: NameKey(key)).encodeValue(value)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedFieldContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedFieldContainer(encoder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleFieldContainer(encoder: self) }
}

private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
}

/// The coding key of an array element.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct KeyedFieldContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(_ key: Key) -> FieldEncoder {
        encoder.child(encoder.options.keyEncoding.encode(key.stringValue), key: key)
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

    mutating func superEncoder() -> any Encoder { encoder.child("super", key: NameKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

private struct UnkeyedFieldContainer: UnkeyedEncodingContainer {
    let encoder: FieldEncoder
    private(set) var count = 0
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: FieldEncoder) { self.encoder = encoder }

    private mutating func nextElement() -> FieldEncoder {
        defer { count += 1 }
        let component: String? =
            switch encoder.options.arrayEncoding {
            case .brackets: ""
            case .indexed: "\(count)"
            case .repeatedKey: nil
            }
        return encoder.child(component, key: IndexKey(intValue: count))
    }

    mutating func encodeNil() throws { try nextElement().write("") }
    mutating func encode<T: Encodable>(_ value: T) throws { try nextElement().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        nextElement().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nextElement().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nextElement() }
}

private struct SingleFieldContainer: SingleValueEncodingContainer {
    let encoder: FieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { try encoder.write("") }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
