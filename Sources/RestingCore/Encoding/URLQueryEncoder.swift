import RestingMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// How array elements are named: `tags[]`, `tags[0]` or a repeated `tags`.
    public typealias ArrayEncoding = FormArrayEncoding
    /// How property names become keys (shared with ``/RestingMultipart/MultipartFormDataEncoder``).
    public typealias KeyEncodingStrategy = FormKeyEncodingStrategy
    /// How `Date` values are written (shared with ``/RestingMultipart/MultipartFormDataEncoder``).
    public typealias DateEncodingStrategy = FormDateEncodingStrategy

    /// How `Bool` values are written.
    public enum BoolEncoding: Sendable {
        /// `true` / `false`.
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// How `Data` values are written in a query or form.
    public enum DataEncodingStrategy: Sendable {
        /// Whatever `Data.encode(to:)` does: an array of bytes.
        case deferredToData
        /// Base64, with the standard alphabet.
        case base64
        /// Your own text for the bytes.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How arrays become keys: `tags[]=a&tags[]=b` by default.
    public var arrayEncoding: ArrayEncoding = .brackets
    /// How booleans are written: `true` / `false` by default.
    public var boolEncoding: BoolEncoding = .literal
    /// How property names become keys: unchanged by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How dates are written: ISO 8601 by default.
    public var dateEncodingStrategy: DateEncodingStrategy = .iso8601
    /// How `Data` is written: base64 by default.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64

    /// An encoder with the defaults above.
    public init() {}

    /// The parameters of `value`, which must encode as a keyed container (a struct or a dictionary).
    public func encode<T: Encodable>(_ value: T) throws -> [URLQueryItem] {
        try FormFieldEncoder.fields(of: value, options: options).map { field in
            guard case .text(let text) = field.value else {
                throw EncodingError.invalidValue(
                    field.name,
                    .init(
                        codingPath: [],
                        debugDescription: "\(field.name) is a file: files travel in .multipartFormData bodies only"))
            }
            return URLQueryItem(name: field.name, value: text)
        }
    }

    /// `name=value` pairs joined by `&`, every byte but the unreserved characters percent-encoded.
    public static func percentEncoded(_ items: [URLQueryItem]) -> String {
        items.map { item in
            PercentEncoding.encode(item.name) + (item.value.map { "=" + PercentEncoding.encode($0) } ?? "")
        }.joined(separator: "&")
    }

    private var options: FormFieldOptions {
        let dataStrategy = dataEncodingStrategy
        return FormFieldOptions(
            arrayEncoding: arrayEncoding, boolAsNumber: boolEncoding == .numeric, keyEncoding: keyEncodingStrategy,
            dateEncoding: dateEncodingStrategy,
            encodeData: { data in
                switch dataStrategy {
                case .deferredToData: nil
                case .base64: .text(data.base64EncodedString())
                case .custom(let format): .text(try format(data))
                }
            })
    }
}
