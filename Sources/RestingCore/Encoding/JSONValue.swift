#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value: a body whose shape is not worth a type (a JSON merge-patch), what a JSON-RPC error's `data` may
/// hold, how a batch keeps results until they are read, and what the log redactor rewrites. Written as literals:
///
/// ```swift
/// let patch: JSONValue = ["title": "Renamed", "done": true, "priority": 2, "tags": ["a", "b"], "due": nil]
/// let count = JSONValue(records.count)
/// patch["priority"]?.intValue  // 2
/// ```
///
/// Numbers are `Decimal`, so they keep the digits they were sent with: an id such as `9007199254740993`
/// (past `Double`'s 2^53) or `0.1` reads back exactly, and an integer is exact up to 38 digits.
public enum JSONValue: Codable, Sendable, Equatable {
    /// JSON's `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept exactly as a `Decimal`.
    case number(Decimal)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object: its members by name.
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Decimal.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// This value decoded as `T`.
    public func decode<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: JSONEncoder().encode(self))
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object; a name given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The integer `value`, exactly.
    public init(_ value: Int) { self = .number(Decimal(value)) }
    /// The number `value`, with the digits of its shortest exact form (`0.1` stays `0.1`). A NaN or an infinity,
    /// which JSON cannot hold, is `null`, and so is a number past `Decimal`'s range (a magnitude above about 1e165 or
    /// below about 1e-128), which this type cannot hold: build such a value from a `String` of its digits instead.
    public init(_ value: Double) {
        guard value.isFinite, let decimal = Decimal(string: "\(value)") else {
            self = .null
            return
        }
        self = .number(decimal)
    }
    /// The string `value`.
    public init(_ value: String) { self = .string(value) }
    /// The boolean `value`.
    public init(_ value: Bool) { self = .bool(value) }

    /// The number as an `Int` when it is a whole number that fits, else `nil`.
    public var intValue: Int? {
        guard case .number(let number) = self else { return nil }
        // A Decimal's description is its exact digits: a whole number's has no point or exponent.
        return Int(number.description)
    }
    /// The number as the nearest `Double`, else `nil`.
    public var doubleValue: Double? {
        guard case .number(let number) = self else { return nil }
        return Double(number.description)
    }
    /// The string, else `nil`.
    public var stringValue: String? {
        guard case .string(let string) = self else { return nil }
        return string
    }
    /// The boolean, else `nil`.
    public var boolValue: Bool? {
        guard case .bool(let bool) = self else { return nil }
        return bool
    }
    /// The member `name` of an object; `nil` when there is none or this is not an object.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }
    /// The element at `index` of an array; `nil` when out of range or this is not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
