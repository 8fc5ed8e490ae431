#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes an `Encodable` value as a `multipart/form-data` body, configured like `JSONEncoder`.
///
/// Each field becomes one part, in the order the value encodes them; a ``MultipartFile`` becomes a file part
/// that streams from disk. Nested values are named `a[b]`, array elements `a[]` or `a[0]`
/// (``arrayEncoding``); a `nil` property is left out and a `nil` array element kept as an empty part, so
/// element positions never shift.
///
/// ```swift
/// var encoder = MultipartFormDataEncoder()
/// encoder.keyEncodingStrategy = .convertToSnakeCase
/// encoder.dateEncodingStrategy = .secondsSince1970
/// encoder.dataEncodingStrategy = .base64
/// let form = try encoder.encode(PhotoUpload(caption: "Sunset", file: MultipartFile(url: photoURL)))
/// ```
///
/// It is a value: configure a copy per use, share it freely.
public struct MultipartFormDataEncoder: Sendable {
    /// How property names become field names (shared with `URLQueryEncoder`).
    public typealias KeyEncodingStrategy = FormKeyEncodingStrategy
    /// How `Date` values are written (shared with `URLQueryEncoder`).
    public typealias DateEncodingStrategy = FormDateEncodingStrategy
    /// How arrays become field names (shared with `URLQueryEncoder`).
    public typealias ArrayEncoding = FormArrayEncoding

    /// How `Data` values are sent.
    public enum DataEncodingStrategy: Sendable {
        /// As they are, in a part of type `application/octet-stream`.
        case raw
        /// As a base64 text field.
        case base64
        /// As the text the closure returns.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How property names become field names: unchanged by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How dates are written: ISO 8601 by default.
    public var dateEncodingStrategy: DateEncodingStrategy = .iso8601
    /// How `Data` values are sent: as they are, in `application/octet-stream` parts, by default.
    public var dataEncodingStrategy: DataEncodingStrategy = .raw
    /// How arrays become field names: `tags[]` by default.
    public var arrayEncoding: ArrayEncoding = .brackets

    /// An encoder with the defaults above.
    public init() {}

    /// The body for `value`, which must encode as a keyed container (a struct or a dictionary). Files are
    /// measured and checked now, not read.
    public func encode<T: Encodable>(_ value: T) throws(MultipartError) -> MultipartFormData {
        let fields: [FormField]
        do {
            fields = try FormFieldEncoder.fields(of: value, options: options)
        } catch let error as MultipartError {
            throw error
        } catch {
            throw .invalidValue(reason: "\(T.self): \(error)")
        }
        var parts: [MultipartFormData.Part] = []
        for field in fields {
            switch field.value {
            case .text(let text): parts.append(.text(field.name, text))
            case .bytes(let data):
                parts.append(
                    MultipartFormData.Part(name: field.name, contentType: MIMEType.fallback, content: .bytes(data)))
            case .file(let file): parts.append(try .file(field.name, file))
            }
        }
        return try MultipartFormData(parts: parts)
    }

    private var options: FormFieldOptions {
        let dataStrategy = dataEncodingStrategy
        return FormFieldOptions(
            arrayEncoding: arrayEncoding, boolAsNumber: false, keyEncoding: keyEncodingStrategy,
            dateEncoding: dateEncodingStrategy,
            encodeData: { data in
                switch dataStrategy {
                case .raw: .bytes(data)
                case .base64: .text(data.base64EncodedString())
                case .custom(let format): .text(try format(data))
                }
            })
    }
}
