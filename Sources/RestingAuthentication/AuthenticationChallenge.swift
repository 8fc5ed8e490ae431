import RestingCore

/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.6.1): a scheme, and either
/// named parameters or a single `token68`.
///
/// A field may hold several challenges, and a response several fields; ``challenges(in:field:)`` reads them all in
/// the server's order, which is its order of preference.
///
/// ```swift
/// let challenges = AuthenticationChallenge.challenges(in: response.headers)
/// if let digest = challenges.first(where: { $0.hasScheme("Digest") }) {
///     print(digest["realm"] ?? "", digest["qop"] ?? "")
/// }
/// ```
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme as the server wrote it (`Digest`, `Basic`, `Bearer`); compare it with ``hasScheme(_:)``.
    public let scheme: String
    /// The parameters, by lowercased name, their values unquoted.
    public let parameters: [String: String]
    /// The single opaque value of a scheme that takes one instead of parameters (RFC 9110's `token68`).
    public let token68: String?

    /// A challenge of `scheme` with `parameters` (names are compared case-insensitively) or a `token68`.
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.token68 = token68
    }

    /// The value of the parameter `name` (any case).
    public subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Whether this challenge is of `name`'s scheme (schemes are case-insensitive).
    public func hasScheme(_ name: String) -> Bool { scheme.lowercased() == name.lowercased() }

    /// Every challenge of every `field` line of `headers`, in order. A line that does not follow RFC 9110's grammar
    /// gives none (the others still count): a client cannot know what a malformed challenge asked for.
    public static func challenges(in headers: HTTPHeaderFields, field: String = "WWW-Authenticate")
        -> [AuthenticationChallenge]
    {
        headers.values(for: field).flatMap { parse($0) ?? [] }
    }

    /// The challenges of one field value, or `nil` when it does not follow RFC 9110's grammar.
    public static func parse(_ value: String) -> [AuthenticationChallenge]? {
        var scanner = ChallengeScanner(Array(value.utf8))
        return scanner.challenges()
    }
}

/// Reads `#challenge` (RFC 9110 §11.3): `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, where a comma
/// separates both parameters and challenges — a token followed by `=` is a parameter, any other starts a challenge.
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func challenges() -> [AuthenticationChallenge]? {
        var found: [AuthenticationChallenge] = []
        skipSeparators()
        while index < bytes.count {
            guard let challenge = challenge() else { return nil }
            found.append(challenge)
            skipSeparators()
        }
        return found
    }

    private mutating func challenge() -> AuthenticationChallenge? {
        guard let scheme = token() else { return nil }
        let afterScheme = index
        skipSpaces()
        // The scheme alone, followed by the next challenge or the end.
        if index == bytes.count || bytes[index] == UInt8(ascii: ",") {
            return AuthenticationChallenge(scheme: scheme)
        }
        guard index > afterScheme else { return nil }  // a scheme and its credentials need a space between them
        if let token68 = token68() { return AuthenticationChallenge(scheme: scheme, token68: token68) }
        var parameters: [String: String] = [:]
        while index < bytes.count {
            let start = index
            guard let name = token() else { return nil }
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                // Not a parameter: the next challenge's scheme.
                guard !parameters.isEmpty else { return nil }
                index = start
                break
            }
            index += 1
            skipSpaces()
            guard let value = quotedString() ?? token() else { return nil }
            // "Each parameter name MUST only occur once per challenge" (RFC 9110 §11.2).
            guard parameters.updateValue(value, forKey: name.lowercased()) == nil else { return nil }
            skipSpaces()
            guard index < bytes.count else { break }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            skipSeparators()
        }
        return AuthenticationChallenge(scheme: scheme, parameters: parameters)
    }

    /// `token68`, when it is all that follows the scheme before a comma or the end; otherwise nothing is consumed.
    private mutating func token68() -> String? {
        let start = index
        while index < bytes.count, Self.isToken68Character(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipSpaces()
        guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private mutating func token() -> String? {
        let start = index
        while index < bytes.count, HTTPToken.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted string, unescaped; `nil` (nothing consumed) unless one starts here and ends.
    private mutating func quotedString() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var value: [UInt8] = []
        var cursor = index + 1
        while cursor < bytes.count {
            switch bytes[cursor] {
            case UInt8(ascii: "\""):
                index = cursor + 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\") where cursor + 1 < bytes.count:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ): an escaped control character is not text either.
                let escaped = bytes[cursor + 1]
                guard escaped == 0x09 || (escaped >= 0x20 && escaped != 0x7F) else { return nil }
                value.append(escaped)
                cursor += 2
            case 0x00..<0x09, 0x0A..<0x20, 0x7F:
                return nil  // control characters are not text, quoted or not
            case let byte:
                value.append(byte)
                cursor += 1
            }
        }
        return nil
    }

    private mutating func skipSpaces() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    /// Commas and the spaces around them: a list may have empty elements (RFC 9110 §5.6.1).
    private mutating func skipSeparators() {
        while index < bytes.count, bytes[index] == UInt8(ascii: ",") || Self.isSpace(bytes[index]) { index += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "-._~+/".utf8.contains(byte)
        }
    }
}
