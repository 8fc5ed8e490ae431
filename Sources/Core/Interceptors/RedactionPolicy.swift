#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What RestingKit hides when it prints a request or a response: header values, query parameters and JSON
/// body keys that carry secrets. Logging, cURL descriptions and recordings all use it, on by default.
///
/// ```swift
/// var redaction = RedactionPolicy.default
/// redaction.headerNames.insert("x-api-key")
/// redaction.jsonBodyKeys.insert("ssn")
/// ```
public struct RedactionPolicy: Sendable, Equatable {
    /// Header names, compared ignoring case (however they are spelled here).
    public var headerNames: Set<String>
    /// Query parameter names, compared exactly.
    public var queryParameters: Set<String>
    /// JSON object keys, at any depth, compared exactly.
    public var jsonBodyKeys: Set<String>

    public init(headerNames: Set<String>, queryParameters: Set<String>, jsonBodyKeys: Set<String>) {
        self.headerNames = headerNames
        self.queryParameters = queryParameters
        self.jsonBodyKeys = jsonBodyKeys
    }

    /// Credentials headers, and the usual names of tokens, keys and passwords in queries and JSON bodies.
    public static let `default` = RedactionPolicy(
        headerNames: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"],
        queryParameters: ["access_token", "token", "api_key", "apikey", "key", "password", "client_secret", "signature"],
        jsonBodyKeys: ["password", "token", "access_token", "refresh_token", "id_token", "client_secret", "secret"])

    /// Nothing hidden: for a cURL command that must reproduce the request exactly. Never log with it.
    public static let none = RedactionPolicy(headerNames: [], queryParameters: [], jsonBodyKeys: [])

    public static let placeholder = "<redacted>"

    public func redactsHeader(_ name: String) -> Bool { headerNames.contains { $0.caseInsensitiveEquals(name) } }

    /// The value to print for a header.
    public func value(ofHeader field: HTTPHeaders.Field) -> String {
        redactsHeader(field.name) ? Self.placeholder : field.value
    }

    /// `url` without its user-info part (where credentials sit) and with redacted query values replaced.
    public func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        guard let items = components.percentEncodedQueryItems, items.contains(where: { queryParameters.contains($0.name) })
        else { return components.string ?? url.absoluteString }
        // Built by hand: `<redacted>` is not valid percent-encoding, and it should read as it is.
        let query = items.map { item in
            let value = queryParameters.contains(item.name) ? Self.placeholder : item.value
            return item.name + (value.map { "=" + $0 } ?? "")
        }.joined(separator: "&")
        components.percentEncodedQuery = nil
        return (components.string ?? url.absoluteString) + "?" + query
    }

    /// A JSON body with redacted keys replaced at any depth, or `nil` when `body` is not a JSON object or array.
    public func json(_ body: Data, prettyPrinted: Bool = false) -> String? {
        redactedJSON(body, prettyPrinted: prettyPrinted)?.text
    }

    /// The body to show where it must stay as sent unless a secret is in it: the redacted JSON when a key
    /// was hidden, `nil` otherwise.
    public func jsonIfRedacted(_ body: Data) -> String? {
        guard let result = redactedJSON(body, prettyPrinted: false), result.hidSomething else { return nil }
        return result.text
    }

    private func redactedJSON(_ body: Data, prettyPrinted: Bool) -> (text: String, hidSomething: Bool)? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else { return nil }
        switch value {
        case .object, .array: break
        default: return nil
        }
        var hidSomething = false
        let cleaned = redacted(value, hidSomething: &hidSomething)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if prettyPrinted { encoder.outputFormatting.insert(.prettyPrinted) }
        guard let data = try? encoder.encode(cleaned) else { return nil }
        return (String(decoding: data, as: UTF8.self), hidSomething)
    }

    private func redacted(_ value: JSONValue, hidSomething: inout Bool) -> JSONValue {
        switch value {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, nested) in object {
                if jsonBodyKeys.contains(key) {
                    result[key] = .string(Self.placeholder)
                    hidSomething = true
                } else {
                    result[key] = redacted(nested, hidSomething: &hidSomething)
                }
            }
            return .object(result)
        case .array(let array):
            return .array(array.map { redacted($0, hidSomething: &hidSomething) })
        default:
            return value
        }
    }
}
