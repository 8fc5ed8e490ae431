/// An ordered list of HTTP header fields with case-insensitive names.
///
/// Order and repeats are kept exactly as added, and names keep the spelling they were given; lookups ignore
/// case. A dictionary literal keeps its written order:
///
/// ```swift
/// var headers: HTTPHeaderFields = ["Accept": "application/json", "X-Trace": "abc"]
/// headers["accept"]                      // "application/json"
/// headers.add(name: "Cookie", value: "a=1")
/// headers["X-Trace"] = nil               // removes every X-Trace field
/// ```
///
/// Values are not checked when added; ``validate()`` runs before a request reaches a transport and rejects
/// invalid names and any CR, LF or NUL, so a header can never smuggle another one.
///
/// **Sensitivity sticks to the name.** Once a field is marked sensitive, every field of that name set later in
/// the same list is sensitive too, however it is set (the subscript, ``replaceOrAdd(name:value:sensitive:origin:)``
/// without `sensitive:`, a request's own header over a provider's): a credential can lose its protection only by
/// building a new list without it.
public struct HTTPHeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field's name, in the case it was given; compared without case.
        public var name: String
        /// The field's value.
        public var value: String
        /// Whether the value is a credential although its name is not one of ``SensitiveHeaders/names``: it
        /// is then dropped on a redirect to another origin and redacted wherever it is printed, like them.
        public var isSensitive: Bool
        /// The origin this field's credential was issued for; `nil` means the origin the call was addressed
        /// to (``HTTPRequest/credentialOrigin``). A field that carries a credential is sent only to its
        /// origin: the last link before the transport drops it from a request to any other (the credential
        /// boundary). Set it for a credential that belongs to a particular site, such as a cookie.
        public var origin: Origin?

        /// A field; a sensitive one is redacted in logs and kept within its origin.
        public init(name: String, value: String, isSensitive: Bool = false, origin: Origin? = nil) {
            self.name = name
            self.value = value
            self.isSensitive = isSensitive
            self.origin = origin
        }

        /// Whether this field carries a credential: marked so, or named like one (``SensitiveHeaders``).
        public var carriesCredential: Bool { isSensitive || SensitiveHeaders.contains(name) }
    }

    private var fields: [Field]
    /// Names (as first marked) that were ever marked sensitive in this list: later fields of the name are too.
    private var sensitiveNames: [String] = []

    /// No fields.
    public init() { fields = [] }
    /// These fields, in this order.
    public init(_ fields: [Field]) {
        self.fields = []
        for field in fields { append(field) }
    }
    /// A field for each name and value, in this order.
    public init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// Room for `capacity` fields without growing: for a transport that collects a response's head line by line.
    package mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    /// Gives back the room ``reserveCapacity(_:)`` left unused: for a head kept as long as a streamed body flows.
    package mutating func shrinkToFit() {
        guard fields.capacity > fields.count else { return }
        var exact: [Field] = []
        exact.reserveCapacity(fields.count)
        exact.append(contentsOf: fields)
        fields = exact
    }

    /// How many fields there are, repeats counted.
    public var count: Int { fields.count }
    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, ignoring case; setting replaces every field of that name (in place of the
    /// first one, so order is kept) and `nil` removes them all.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            guard let newValue else { return remove(name: name) }
            replaceOrAdd(name: name, value: newValue)
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field of this name (in any case) is present.
    public func contains(_ name: String) -> Bool { fields.contains { $0.name.caseInsensitiveEquals(name) } }

    /// Appends a field, keeping any existing ones of the same name (for `Set-Cookie`-like headers).
    /// `sensitive` marks a credential whose name RestingKit cannot know (see ``Field/isSensitive``); `origin`
    /// binds it to a site other than the call's (see ``Field/origin``).
    public mutating func add(name: String, value: String, sensitive: Bool = false, origin: Origin? = nil) {
        append(Field(name: name, value: value, isSensitive: sensitive, origin: origin))
    }

    /// Replaces every field named `name` with one field at the position of the first, or appends it.
    /// `sensitive` marks a credential whose name RestingKit cannot know (see ``Field/isSensitive``); a name
    /// already marked stays marked without it. `origin` binds the new value (see ``Field/origin``).
    public mutating func replaceOrAdd(name: String, value: String, sensitive: Bool = false, origin: Origin? = nil) {
        guard let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
            return add(name: name, value: value, sensitive: sensitive, origin: origin)
        }
        if sensitive { markSensitive(name) }
        fields[first].value = value
        // Every field added as sensitive marked its name: the name's mark is the field's.
        fields[first].isSensitive = isMarkedSensitive(name)
        fields[first].origin = origin
        fields = fields.enumerated()
            .filter { index, field in index <= first || !field.name.caseInsensitiveEquals(name) }
            .map(\.element)
    }

    /// Appends `field`, sensitive if its name was ever marked so in this list (and marking it if it is).
    private mutating func append(_ field: Field) {
        var field = field
        if field.isSensitive {
            markSensitive(field.name)
        } else if isMarkedSensitive(field.name) {
            field.isSensitive = true
        }
        fields.append(field)
    }

    private mutating func markSensitive(_ name: String) {
        if !isMarkedSensitive(name) { sensitiveNames.append(name) }
    }

    private func isMarkedSensitive(_ name: String) -> Bool {
        // Usually empty: most requests carry no credential that is not named like one.
        !sensitiveNames.isEmpty && sensitiveNames.contains { $0.caseInsensitiveEquals(name) }
    }

    /// Removes every field of this name, in any case. A name marked sensitive stays marked: set again, it is
    /// sensitive again.
    public mutating func remove(name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    /// Removes every field for which `shouldBeRemoved` is true (the credential boundary's filter).
    package mutating func removeAll(where shouldBeRemoved: (Field) -> Bool) { fields.removeAll(where: shouldBeRemoved) }

    /// Whether `name` frames the message on the wire (`Content-Length`, `Transfer-Encoding`, `Expect`):
    /// transports decide those from the body they send, and never pass a caller's on, so the length a server
    /// reads can never differ from the bytes that follow (request smuggling).
    package static func isFraming(_ name: String) -> Bool {
        name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Transfer-Encoding")
            || name.caseInsensitiveEquals("Expect")
    }

    /// Removes the framing fields (``isFraming(_:)``).
    package mutating func removeFraming() { fields.removeAll { Self.isFraming($0.name) } }

    /// Removes every field that carries a credential (``Field/carriesCredential``): what a hop to another
    /// origin must not take along.
    public mutating func removeCredentials() { fields.removeAll(where: \.carriesCredential) }

    /// Adds every field of `other` whose name is not present yet (used to lay defaults under explicit values).
    public mutating func addMissing(from other: HTTPHeaderFields) {
        for field in other where !contains(field.name) { append(field) }
    }

    /// Throws ``RestingError/invalidHeader(name:reason:)`` for a name that is not an RFC 9110 token or a
    /// value holding CR, LF, NUL or another control character but tab. The value is never put in the error.
    public func validate() throws(RestingError) {
        for field in fields {
            guard HTTPToken.isToken(field.name) else {
                throw .invalidHeader(name: field.name, reason: "the name is not a valid HTTP token")
            }
            var value = field.value
            if let bad = value.withUTF8({ $0.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }) {
                let what = bad == 0x0D ? "CR" : bad == 0x0A ? "LF" : "control character 0x\(String(bad, radix: 16))"
                throw .invalidHeader(name: field.name, reason: "the value contains \(what)")
            }
        }
    }

    /// Throws as ``validate()`` does, and for a field a trailer section must not carry (RFC 9110 §6.5.1): those that
    /// frame, route, authenticate, modify or describe the message — a recipient would apply them after the fact,
    /// or not at all.
    package func validateAsTrailers() throws(RestingError) {
        try validate()
        for field in fields {
            let name = field.name.lowercased()
            if Self.forbiddenInTrailers.contains(name) || name.hasPrefix("if-") {
                throw .invalidHeader(name: field.name, reason: "the field is not allowed in a trailer section")
            }
        }
    }

    private static let forbiddenInTrailers: Set<String> = [
        "content-length", "transfer-encoding", "trailer", "te", "host", "authorization", "proxy-authorization",
        "cookie", "set-cookie", "www-authenticate", "proxy-authenticate", "content-type", "content-encoding",
        "content-range", "range", "expect", "max-forwards", "cache-control", "pragma", "age", "expires", "date",
        "location", "retry-after", "vary", "warning",
    ]

    /// `Name: value` lines with the values of credential headers replaced by `<redacted>`
    /// (``RedactionPolicy/default``, and every field marked sensitive).
    public var description: String {
        fields.map { "\($0.name): \(RedactionPolicy.default.value(ofHeader: $0))" }.joined(separator: "\n")
    }

    public static func == (lhs: HTTPHeaderFields, rhs: HTTPHeaderFields) -> Bool { lhs.fields == rhs.fields }
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }
}

extension String {
    /// Whether every character is ASCII, read over the contiguous bytes (free for a native string).
    package var isASCII: Bool {
        var text = self
        return text.withUTF8 { $0.allSatisfy { $0 < 0x80 } }
    }

    /// Equality ignoring ASCII case, the comparison HTTP field names need, without allocating.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        // Names of different lengths differ, and most comparisons stop here (a native string knows its length).
        guard utf8.count == other.utf8.count else { return false }
        // Over the contiguous bytes (free for a native string), where the UTF-8 view's iterators cost more than the
        // comparison: every header field of every call is looked up this way.
        var (mine, theirs) = (self, other)
        return mine.withUTF8 { mine in
            theirs.withUTF8 { theirs in
                mine.indices.allSatisfy { index in
                    let (a, b) = (mine[index], theirs[index])
                    // ASCII letters differ from their capitals only in bit 5.
                    return a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
                }
            }
        }
    }
}
