#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How array elements are named, by both `URLQueryEncoder` and ``MultipartFormDataEncoder``.
public enum FormArrayEncoding: Sendable {
    /// `tags[]=x&tags[]=y` (Rails, PHP).
    case brackets
    /// `tags[0]=x&tags[1]=y`.
    case indexed
    /// `tags=x&tags=y`.
    case repeatedKey
}

/// How coding keys become field names.
public enum FormKeyEncodingStrategy: Sendable {
    /// Property names as they are.
    case useDefaultKeys
    /// `userId` → `user_id`, `imageURL` → `image_url`.
    case convertToSnakeCase
    /// Property names through your function.
    case custom(@Sendable (String) -> String)

    func encode(_ key: String) -> String {
        switch self {
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
}

/// How `Date` values become field values.
public enum FormDateEncodingStrategy: Sendable {
    /// Whatever `Date.encode(to:)` does: seconds since 2001-01-01.
    case deferredToDate
    /// Seconds since 1970, as a decimal number.
    case secondsSince1970
    /// Whole milliseconds since 1970.
    case millisecondsSince1970
    /// RFC 3339 / ISO 8601 with seconds, in UTC: `2024-05-01T12:00:00Z`.
    case iso8601
    /// Any other text. (`.formatted(DateFormatter)`, with `import RestingKit`, is this with a formatter.)
    case custom(@Sendable (Date) throws -> String)

    /// The text for `date`, or `nil` for ``deferredToDate``.
    func text(for date: Date) throws -> String? {
        switch self {
        case .deferredToDate: nil
        case .secondsSince1970: "\(date.timeIntervalSince1970)"
        case .millisecondsSince1970: "\(date.timeIntervalSince1970 * 1000)"
        case .iso8601: date.formatted(.iso8601)
        case .custom(let format): try format(date)
        }
    }
}
