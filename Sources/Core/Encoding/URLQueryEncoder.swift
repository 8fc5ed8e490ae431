import Foundation

/// Encodes an `Encodable` value into URL query parameters, for `.query` endpoints and
/// `application/x-www-form-urlencoded` bodies.
///
/// ```swift
/// struct Search: Encodable { let term: String; let tags: [String]; let page: Page }
/// struct Page: Encodable { let size: Int; let after: String? }
///
/// var encoder = URLQueryEncoder()
/// encoder.arrayEncoding = .indexed
/// try encoder.encode(Search(term: "a b", tags: ["x", "y"], page: Page(size: 10, after: nil)))
/// // term=a b, tags[0]=x, tags[1]=y, page[size]=10
/// ```
///
/// - Nested values become `a[b]`; arrays `a[]`, `a[0]` or a repeated `a`, by ``arrayEncoding``.
/// - Order is the order of encoding — a struct's fields in declaration order — and stable from run to run;
///   dictionaries, which have no order, are encoded with their keys sorted (and the key strategy is applied
///   to coding keys only, not to dictionary keys).
/// - An explicit `nil` (an `Optional` element of an array, `encodeNil`) is kept as an empty value, so
///   `[1, nil, 3]` keeps its three elements; a `nil` optional property is left out, like JSONEncoder does.
/// - An empty array or dictionary produces no parameter.
public struct URLQueryEncoder: Sendable {
    /// How array elements are named.
    public enum ArrayEncoding: Sendable {
        /// `tags[]=x&tags[]=y` (Rails, PHP).
        case brackets
        /// `tags[0]=x&tags[1]=y`.
        case indexed
        /// `tags=x&tags=y`.
        case repeatedKey
    }

    /// How `Bool` values are written.
    public enum BoolEncoding: Sendable {
        /// `true` / `false`.
        case literal
        /// `1` / `0`.
        case numeric
    }

    public enum KeyEncodingStrategy: Sendable {
        case useDefaultKeys
        /// `userId` → `user_id`, `imageURL` → `image_url`.
        case convertToSnakeCase
        case custom(@Sendable (String) -> String)
    }

    public enum DateEncodingStrategy: Sendable {
        /// Whatever `Date.encode(to:)` does: seconds since 2001-01-01.
        case deferredToDate
        case secondsSince1970
        case millisecondsSince1970
        /// RFC 3339 / ISO 8601 with seconds, in UTC: `2024-05-01T12:00:00Z`.
        case iso8601
        case formatted(DateFormatter)
        case custom(@Sendable (Date) throws -> String)
    }

    public enum DataEncodingStrategy: Sendable {
        /// Whatever `Data.encode(to:)` does: an array of bytes.
        case deferredToData
        case base64
        case custom(@Sendable (Data) throws -> String)
    }

    public var arrayEncoding: ArrayEncoding = .brackets
    public var boolEncoding: BoolEncoding = .literal
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    public var dateEncodingStrategy: DateEncodingStrategy = .iso8601
    public var dataEncodingStrategy: DataEncodingStrategy = .base64

    public init() {}

    /// The parameters of `value`, which must encode as a keyed container (a struct or a dictionary).
    public func encode<T: Encodable>(_ value: T) throws -> [URLQueryItem] {
        let output = QueryOutput()
        try QueryValueEncoder(options: self, output: output, path: [], codingPath: []).encodeValue(value)
        return output.items
    }

    /// `name=value` pairs joined by `&`, every byte but the unreserved characters percent-encoded.
    public static func percentEncoded(_ items: [URLQueryItem]) -> String {
        items.map { item in
            PercentEncoding.encode(item.name) + (item.value.map { "=" + PercentEncoding.encode($0) } ?? "")
        }.joined(separator: "&")
    }

    func encodedKey(_ key: String) -> String {
        switch keyEncodingStrategy {
        case .useDefaultKeys: key
        case .convertToSnakeCase: Self.snakeCased(key)
        case .custom(let transform): transform(key)
        }
    }

    static func snakeCased(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous.isLowercase || previous.isNumber
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if startsWord || endsAcronym { result.append("_") }
            }
            result += character.lowercased()
        }
        return result
    }

    private static let iso8601 = Locked(ISO8601DateFormatter())

    func string(from date: Date) throws -> String? {
        switch dateEncodingStrategy {
        case .deferredToDate: nil
        case .secondsSince1970: "\(date.timeIntervalSince1970)"
        case .millisecondsSince1970: "\(date.timeIntervalSince1970 * 1000)"
        case .iso8601: Self.iso8601.withLock { $0.string(from: date) }
        case .formatted(let formatter): formatter.string(from: date)
        case .custom(let format): try format(date)
        }
    }

    func string(from data: Data) throws -> String? {
        switch dataEncodingStrategy {
        case .deferredToData: nil
        case .base64: data.base64EncodedString()
        case .custom(let format): try format(data)
        }
    }
}
