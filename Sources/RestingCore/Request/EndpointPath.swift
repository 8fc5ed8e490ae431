/// An endpoint's path written as Swift string interpolation: each value interpolated is one path segment,
/// percent-encoded and checked as a template variable's value is, so that the endpoint can be a function whose
/// parameters the compiler checks.
///
/// ```swift
/// enum Kinto {
///     static func collection(bucket: String, id: String) -> Endpoint<Nothing, Collection> {
///         Endpoint(.get, "/buckets/\(bucket)/collections/\(id)").unwrapping("data")
///     }
///     static func file(_ path: String) -> Endpoint<Nothing, Data> {
///         Endpoint(.get, "/files/\(segments: path)")  // "a/b.txt" spans two segments
///     }
/// }
/// let collection = try await client.call(Kinto.collection(bucket: "blog", id: "articles"))
/// ```
///
/// A value that would change the URL's shape — empty, `.` or `..` — makes every call of the endpoint fail with
/// ``RestingError/invalidPathVariable(name:template:reason:)``, nothing sent, as a template's variable does; `/`, `?`,
/// `#`, `%`, braces and spaces stay inside the segment. Literal text is a ``PathTemplate`` as before, so a path
/// may mix both: `"/users/\(id)/files/{{{path}}}"` takes `path` from the request's path variables.
///
/// Without interpolation, a path literal is the template itself (`"/posts/{{post_id}}"`).
public struct EndpointPath: Sendable, ExpressibleByStringInterpolation {
    /// The template, with every interpolated value in place, encoded.
    let template: String
    /// The first interpolated value that was refused.
    let failure: RestingError?
    /// Whether values were interpolated: the path is then one call's, and holds what may be an identifier or a token.
    let holdsValues: Bool

    /// A path with no interpolation: the template as written.
    public init(stringLiteral template: String) {
        self.template = template
        failure = nil
        holdsValues = false
    }

    /// A path with interpolated values.
    public init(stringInterpolation path: StringInterpolation) {
        template = path.template
        failure = path.failure
        holdsValues = path.count > 0
    }

    /// How the compiler builds an ``EndpointPath`` from an interpolated literal.
    public struct StringInterpolation: StringInterpolationProtocol {
        var template = ""
        var failure: RestingError?
        /// The path as errors show it: the literal text, each value a placeholder.
        private var shown = ""
        fileprivate private(set) var count = 0

        /// Room for the literal's text.
        public init(literalCapacity: Int, interpolationCount: Int) {
            template.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// Literal text: template text, variables included.
        public mutating func appendLiteral(_ literal: String) {
            template += literal
            shown += literal
        }

        /// `value` as one path segment.
        public mutating func appendInterpolation(_ value: some PathVariableValue) {
            append(value.description, spanning: false)
        }

        /// `value` as one or more path segments, split on `/` (as a `{{{name}}}` variable's): `"docs/a.txt"` is two.
        public mutating func appendInterpolation(segments value: some StringProtocol) {
            append(String(value), spanning: true)
        }

        /// Each of `values` as one path segment, in order: `["docs", "a.txt"]` is `docs/a.txt`, and a `/` inside
        /// one of them stays inside its segment.
        public mutating func appendInterpolation<Segments: Sequence>(segments values: Segments)
        where Segments.Element: StringProtocol {
            var first = true
            for value in values {
                if !first { appendLiteral("/") }
                first = false
                append(String(value), spanning: false)
            }
            if first { append("", spanning: false) }  // no segment at all: refused as an empty one is
        }

        private mutating func append(_ value: String, spanning: Bool) {
            count += 1
            shown += "\\(…)"
            do {
                template += try PathTemplate.encoded(value, spanning: spanning)
            } catch {
                guard failure == nil else { return }
                // The template as written, every value a placeholder: a value before the refused one may be a secret.
                failure = .invalidPathVariable(name: "interpolation \(count)", template: shown, reason: error.reason)
            }
        }
    }
}
