#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What RestingKit hides when it prints a request or a response: header values, query parameters, form
/// fields and JSON body keys that carry secrets. Logging, cURL descriptions and recordings all use it, on by
/// default.
///
/// It fails closed: a body is printed only when it can be parsed and redacted — a JSON object or array, or
/// an `application/x-www-form-urlencoded` form — and a URL's user-info and fragment are never printed.
/// Names match ignoring case, percent-encoding and the separators `_`, `-` and `.`, so `access_token`,
/// `accessToken` and `Access-Token` are one name; a name that contains one of ``secretWords`` (`password`,
/// `clientSecret`, `refreshToken`…) is hidden whatever else it says.
///
/// ```swift
/// var redaction = RedactionPolicy.default
/// redaction.headerNames.insert("x-tenant")
/// redaction.jsonBodyKeys.insert("ssn")
/// ```
public struct RedactionPolicy: Sendable, Equatable {
    /// Header names, compared ignoring case (however they are spelled here).
    public var headerNames: Set<String>
    /// Query parameter and form field names.
    public var queryParameters: Set<String>
    /// JSON object keys, at any depth.
    public var jsonBodyKeys: Set<String>
    /// Parts of a name that make any query parameter, form field or JSON key secret.
    public var secretWords: Set<String>
    /// Whether fields marked sensitive (``HTTPHeaderFields/Field/isSensitive``) are hidden whatever their name.
    public var hidesSensitiveFields: Bool

    /// A policy hiding these header names, query parameters and JSON keys, and any name containing one of
    /// `secretWords`; with `hidesSensitiveFields`, every field marked sensitive as well.
    public init(
        headerNames: Set<String>, queryParameters: Set<String>, jsonBodyKeys: Set<String>,
        secretWords: Set<String> = [], hidesSensitiveFields: Bool = true
    ) {
        self.headerNames = headerNames
        self.queryParameters = queryParameters
        self.jsonBodyKeys = jsonBodyKeys
        self.secretWords = secretWords
        self.hidesSensitiveFields = hidesSensitiveFields
    }

    /// The credential headers (``SensitiveHeaders/names``), the usual names of tokens, keys and passwords in
    /// queries, forms and JSON bodies, and any name containing `password`, `secret`, `token` and the like.
    public static let `default` = RedactionPolicy(
        headerNames: SensitiveHeaders.names,
        queryParameters: [
            "access_token", "token", "api_key", "apikey", "key", "password", "client_secret", "signature",
            "code", "code_verifier", "assertion", "sig",
        ],
        jsonBodyKeys: [
            "password", "token", "access_token", "refresh_token", "id_token", "client_secret", "secret",
            "api_key", "private_key",
        ],
        secretWords: [
            "password", "passwd", "passphrase", "secret", "token", "apikey", "credential", "privatekey",
            "signature", "sessionid",
        ])

    /// Nothing hidden: for a cURL command that must reproduce the request exactly. Never log with it.
    public static let none = RedactionPolicy(
        headerNames: [], queryParameters: [], jsonBodyKeys: [], secretWords: [], hidesSensitiveFields: false)

    /// What replaces a hidden value.
    public static let placeholder = "<redacted>"

    /// Headers whose value is a URL, printed through ``url(_:)``.
    private static let urlHeaders = ["Location", "Content-Location"]

    private var hidesNothing: Bool { self == .none }

    /// Whether a header of this name is hidden.
    public func redactsHeader(_ name: String) -> Bool {
        // A name of other characters than ASCII, as Unicode lowercases it (the Kelvin sign is a `k`): a log may show
        // a request no one validated yet.
        guard name.isASCII else { return headerNames.contains { $0.lowercased() == name.lowercased() } }
        return headerNames.contains { $0.caseInsensitiveEquals(name) }
    }

    /// The value to print for a header: hidden for a credential, a URL redacted for `Location`.
    public func value(ofHeader field: HTTPHeaderFields.Field) -> String {
        if redactsHeader(field.name) || (hidesSensitiveFields && field.isSensitive) { return Self.placeholder }
        guard !hidesNothing, Self.urlHeaders.contains(where: field.name.caseInsensitiveEquals) else {
            return field.value
        }
        return URL(string: field.value).map(url) ?? Self.placeholder
    }

    /// `url` without its user-info part (where credentials sit) or fragment (where OAuth puts tokens), and
    /// with redacted query values replaced.
    public func url(_ url: URL) -> String {
        let text = url.absoluteString
        // Without user-info, a query or a fragment there is nothing to hide: most URLs cost a scan, not a parse.
        guard !hidesNothing, text.utf8.contains(where: { $0 == 0x40 || $0 == 0x3F || $0 == 0x23 }) else { return text }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return Self.placeholder }
        components.user = nil
        components.password = nil
        let fragment = components.fragment.map { $0.isEmpty ? "" : "#" + Self.placeholder } ?? ""
        components.fragment = nil
        let query = components.percentEncodedQuery.map { "?" + redactedForm($0).text } ?? ""
        components.percentEncodedQuery = nil
        guard let base = components.string else { return Self.placeholder }
        return base + query + fragment
    }

    /// An address that may not even parse as a URL (the reason it is being printed), as ``url(_:)`` prints a URL:
    /// without user-info, with redacted query values and no fragment; what cannot be parsed at all — its query,
    /// its fragment — is replaced whole.
    public func address(_ text: String) -> String {
        guard !hidesNothing else { return text }
        if let parsed = URL(string: text), parsed.host != nil { return url(parsed) }
        var rest = Substring(text)
        var scheme = Substring()
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let afterSeparator = rest.index(colon, offsetBy: 3)
            scheme = rest[..<afterSeparator]
            rest = rest[afterSeparator...]
        } else if rest.hasPrefix("//") {
            scheme = rest.prefix(2)
            rest = rest.dropFirst(2)
        }
        // User-info ends at the last `@` before the path, query or fragment begins.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        guard let tail = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) else {
            return rest.isEmpty ? Self.placeholder : String(scheme + rest)
        }
        return String(scheme + rest[..<tail]) + (rest[tail] == "?" ? "?" : "#") + Self.placeholder
    }

    /// A body as it may be printed: redacted JSON (object or array), a redacted form, or — under a policy
    /// that hides nothing — any UTF-8 text; `nil` for anything that cannot be shown safely.
    public func printableBody(_ body: Data, contentType: String?, prettyPrinted: Bool = false) -> String? {
        if hidesNothing { return String(data: body, encoding: .utf8) }
        if let json = redactedJSON(body, prettyPrinted: prettyPrinted) { return json.text }
        guard Self.isForm(contentType), let text = String(data: body, encoding: .utf8) else { return nil }
        return redactedForm(text).text
    }

    /// A body to show as sent unless a secret is in it (a cURL command, a recording): the original text with
    /// secrets replaced, or `nil` when it cannot be shown safely.
    public func exactBody(_ body: Data, contentType: String?) -> String? {
        if let json = jsonIfRedacted(body) { return json }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        if hidesNothing || redactedJSON(body, prettyPrinted: false) != nil { return text }
        return Self.isForm(contentType) ? redactedForm(text).text : nil
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

    /// Whether a query parameter or form field named `name` (as sent: percent-encoded, `+` for space) is hidden.
    public func redactsParameter(_ name: String) -> Bool {
        isSecret(PercentEncoding.decode(name, plusIsSpace: true), listed: queryParameters)
    }

    /// Whether a JSON key is hidden.
    public func redactsJSONKey(_ key: String) -> Bool { isSecret(key, listed: jsonBodyKeys) }

    private func isSecret(_ name: String, listed: Set<String>) -> Bool {
        let normalized = Self.normalized(name)
        if listed.contains(where: { Self.normalized($0) == normalized }) { return true }
        return secretWords.contains { normalized.contains(Self.normalized($0)) }
    }

    /// Lowercased, without `_`, `-`, `.` and spaces: the spellings of one name that encoders produce.
    private static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { !"_-. ".unicodeScalars.contains($0) }.map(Character.init))
    }

    private static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    /// `a=1&password=x` with secret values replaced, every other byte kept as it was.
    private func redactedForm(_ text: String) -> (text: String, hidSomething: Bool) {
        var hidSomething = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard redactsParameter(String(name)) else { return String(pair) }
            hidSomething = true
            return name + "=" + Self.placeholder
        }
        return (pairs.joined(separator: "&"), hidSomething)
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
                if redactsJSONKey(key) {
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
