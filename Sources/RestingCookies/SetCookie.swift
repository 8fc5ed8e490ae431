import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `Set-Cookie` field as RFC 6265 §5.2 parses it, before the jar decides whether to keep it.
///
/// Parsing never fails loudly: a field without `name=` is ignored, an attribute that cannot be read is
/// ignored, as browsers do. Limits (RFC 6265bis): a name and value of more than 4096 bytes together, or a
/// control character in either, drops the cookie; an attribute value of more than 1024 bytes drops the attribute.
package struct SetCookie: Equatable, Sendable {
    package var name: String
    package var value: String
    var expires: Date?
    /// Seconds; takes precedence over `expires`.
    var maxAge: Int?
    /// Lowercased, leading dot removed; `nil` when absent or empty.
    var domain: String?
    /// `nil` when absent or not starting with `/` (the default path applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: String?

    static let maximumNameAndValueBytes = 4096
    static let maximumAttributeValueBytes = 1024

    package init?(_ field: String) {
        let sections = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = sections.first, let equals = pair.firstIndex(of: "=") else { return nil }
        name = pair[..<equals].trimmingWhitespace
        value = pair[pair.index(after: equals)...].trimmingWhitespace
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameAndValueBytes,
            !Self.hasControlCharacter(name), !Self.hasControlCharacter(value)
        else { return nil }
        for attribute in sections.dropFirst() { apply(attribute) }
    }

    private mutating func apply(_ attribute: Substring) {
        let name: String
        let value: String
        if let equals = attribute.firstIndex(of: "=") {
            name = attribute[..<equals].trimmingWhitespace.lowercased()
            value = attribute[attribute.index(after: equals)...].trimmingWhitespace
        } else {
            name = attribute.trimmingWhitespace.lowercased()
            value = ""
        }
        guard value.utf8.count <= Self.maximumAttributeValueBytes else { return }
        switch name {
        case "expires":
            if let date = HTTPDate.parseCookieDate(value) { expires = date }
        case "max-age":
            let digits = value.hasPrefix("-") ? value.dropFirst() : value[...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
            // A value too long for an Int is still a number: the longest (or the earliest) expiry.
            maxAge = Int(value) ?? (value.hasPrefix("-") ? Int.min : Int.max)
        case "domain":
            var domain = value[...]
            if domain.hasPrefix(".") { domain = domain.dropFirst() }
            domain = Substring(domain.lowercased())
            self.domain = domain.isEmpty ? nil : String(domain)
        case "path":
            path = value.hasPrefix("/") ? value : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            sameSite = value
        default:
            break
        }
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
