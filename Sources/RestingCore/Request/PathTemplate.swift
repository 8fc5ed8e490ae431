#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A mustache-like path template, parsed once: `/users/{{user_id}}/files/{{{path}}}`.
///
/// - `{{name}}` is one path segment. The value is percent-encoded so that `/`, `?`, `#`, `%` and spaces stay
///   inside the segment; an empty value, `.` or `..` is refused because it would change the URL's shape.
/// - `{{{name}}}` may span segments: the value is split on `/` and each segment is encoded and checked the
///   same way (so `a/b` works, `a/../b` and `a//b` do not).
/// - A variable without a value is ``RestingError/missingPathVariable(name:template:)``, never `""`.
///
/// Unlike the original's GRMustache, nothing is HTML-escaped: values are URL-encoded, and only that.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case segment(name: String)
        case segments(name: String)
    }

    /// The template as written.
    public let template: String
    let parts: [Part]

    /// Parses `template`, throwing ``RestingError/invalidPathTemplate(template:reason:)`` for an unclosed
    /// variable or an invalid variable name.
    public init(_ template: String) throws(RestingError) {
        self.template = template
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.literal(String(rest[..<open.lowerBound]))) }
            let isTriple = rest[open.upperBound...].hasPrefix("{")
            let nameStart = isTriple ? rest.index(after: open.upperBound) : open.upperBound
            let closing = isTriple ? "}}}" : "}}"
            guard let close = rest[nameStart...].firstRange(of: closing) else {
                throw .invalidPathTemplate(template: template, reason: "'\(isTriple ? "{{{" : "{{")' is never closed")
            }
            let name = rest[nameStart..<close.lowerBound].trimmingWhitespace
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                throw .invalidPathTemplate(template: template, reason: "invalid variable name '\(name)'")
            }
            parts.append(isTriple ? .segments(name: name) : .segment(name: name))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        self.parts = parts
    }

    /// The names of the template's variables, in order of appearance.
    public var variableNames: [String] {
        parts.compactMap {
            switch $0 {
            case .literal: nil
            case .segment(let name), .segments(let name): name
            }
        }
    }

    /// The path itself when the template has no variables.
    var literalPath: String? {
        switch parts.first {
        case nil: ""
        case .literal(let text): parts.count == 1 ? text : nil
        case .segment, .segments: nil
        }
    }

    /// The path with every variable replaced by its encoded value from `value(name)`.
    public func render(_ value: (String) -> String?) throws(RestingError) -> String {
        var path = ""
        for part in parts {
            switch part {
            case .literal(let text):
                path += text
            case .segment(let name):
                path += try Self.encoded(try required(name, value), spanning: false, variable: name, template: template)
            case .segments(let name):
                path += try Self.encoded(try required(name, value), spanning: true, variable: name, template: template)
            }
        }
        return path
    }

    public var description: String { template }

    private func required(_ name: String, _ value: (String) -> String?) throws(RestingError) -> String {
        guard let result = value(name) else { throw .missingPathVariable(name: name, template: template) }
        return result
    }

    /// `value` percent-encoded as one path segment, or (`spanning`) as segments split on `/`, each checked: what a
    /// variable of `template` and a value interpolated into an ``EndpointPath`` become.
    static func encoded(_ value: String, spanning: Bool, variable: String, template: String) throws(RestingError)
        -> String
    {
        guard spanning else { return try encodedSegment(value, variable: variable, template: template) }
        return try value.split(separator: "/", omittingEmptySubsequences: false).map { segment throws(RestingError) in
            try encodedSegment(String(segment), variable: variable, template: template)
        }.joined(separator: "/")
    }

    private static func encodedSegment(_ segment: String, variable: String, template: String) throws(RestingError)
        -> String
    {
        switch segment {
        case "":
            throw .invalidPathVariable(name: variable, template: template, reason: "an empty path segment")
        case ".", "..":
            throw .invalidPathVariable(name: variable, template: template, reason: "'\(segment)' is a dot segment")
        default:
            return PercentEncoding.encode(segment)
        }
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar)
    }
}
