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
        // A path with no variable (an endpoint function's, its values already in it) skips the search for `{{`,
        // which costs more than the rest of making its endpoint.
        guard template.utf8.contains(UInt8(ascii: "{")) else {
            parts = template.isEmpty ? [] : [.literal(template)]
            return
        }
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
                path += try encoded(try required(name, value), spanning: false, variable: name)
            case .segments(let name):
                path += try encoded(try required(name, value), spanning: true, variable: name)
            }
        }
        return path
    }

    public var description: String { template }

    private func encoded(_ value: String, spanning: Bool, variable: String) throws(RestingError) -> String {
        do {
            return try Self.encoded(value, spanning: spanning)
        } catch {
            throw .invalidPathVariable(name: variable, template: template, reason: error.reason)
        }
    }

    private func required(_ name: String, _ value: (String) -> String?) throws(RestingError) -> String {
        guard let result = value(name) else { throw .missingPathVariable(name: name, template: template) }
        return result
    }

    /// `value` percent-encoded as one path segment, or (`spanning`) as segments split on `/`, each checked: what a
    /// variable of a template and a value interpolated into an ``EndpointPath`` become. A refused value throws
    /// why, for the caller to name the variable (which costs a string it only makes then).
    static func encoded(_ value: String, spanning: Bool) throws(SegmentRefusal) -> String {
        guard spanning else { return try encodedSegment(value) }
        return try value.split(separator: "/", omittingEmptySubsequences: false).map {
            segment throws(SegmentRefusal) in try encodedSegment(String(segment))
        }.joined(separator: "/")
    }

    /// Why a value cannot be a path segment.
    struct SegmentRefusal: Error {
        let reason: String
    }

    private static func encodedSegment(_ segment: String) throws(SegmentRefusal) -> String {
        switch segment {
        case "": throw SegmentRefusal(reason: "an empty path segment")
        case ".", "..": throw SegmentRefusal(reason: "'\(segment)' is a dot segment")
        default: return PercentEncoding.encode(segment)
        }
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar)
    }
}
