/// A path with wildcards: `*` or `{{name}}` matches one segment, `**` or `{{{name}}}` any number of them
/// (at the end). `/posts/*/comments` matches `/posts/7/comments`; `/files/**` matches `/files/a/b.txt`.
struct PathPattern: Sendable, CustomStringConvertible {
    private enum Segment: Sendable {
        case literal(String)
        case one
        case rest
    }

    let description: String
    private let segments: [Segment]

    init(_ pattern: String) {
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part == "**" || (part.hasPrefix("{{{") && part.hasSuffix("}}}")) { return .rest }
            if part == "*" || (part.hasPrefix("{{") && part.hasSuffix("}}")) { return .one }
            return .literal(String(part))
        }
    }

    func matches(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                return parts.count > index
            case .one:
                guard index < parts.count else { return false }
            case .literal(let text):
                guard index < parts.count, parts[index] == text else { return false }
            }
        }
        return parts.count == segments.count
    }
}
