import RestingCore

/// The directives of `Cache-Control` fields (RFC 9111 §5.2) that a private client cache acts on, from a request
/// or a response. Unknown directives are ignored; a malformed number ignores its directive, never the field.
package struct CacheControl: Equatable, Sendable {
    package var maxAge: Int?
    /// `max-stale` accepts a stale response; without a value, however stale (`Int.max`).
    var maxStale: Int?
    var minFresh: Int?
    var staleIfError: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var onlyIfCached = false

    init() {}

    /// The directives of every `Cache-Control` field in `headers`; a request's `Pragma: no-cache` counts as
    /// `no-cache` when it has no `Cache-Control` (RFC 9111 §5.4).
    package init(_ headers: HTTPHeaderFields) {
        let fields = headers.values(for: "Cache-Control")
        for field in fields {
            for directive in Self.directives(field) { apply(directive.name, directive.value) }
        }
        if fields.isEmpty, headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") }) {
            noCache = true
        }
    }

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "max-age": maxAge = Self.seconds(value) ?? maxAge
        case "max-stale": maxStale = value == nil ? Int.max : Self.seconds(value) ?? maxStale
        case "min-fresh": minFresh = Self.seconds(value) ?? minFresh
        case "stale-if-error": staleIfError = Self.seconds(value) ?? staleIfError
        case "no-store": noStore = true
        // `no-cache="Set-Cookie"` (fields) is treated as plain `no-cache`: stricter, never wrong.
        case "no-cache": noCache = true
        case "must-revalidate", "proxy-revalidate": mustRevalidate = true
        case "only-if-cached": onlyIfCached = true
        default: break
        }
    }

    /// A delta-seconds value (RFC 9111 §1.2.2): digits only; too large a number is the largest.
    private static func seconds(_ value: String?) -> Int? {
        guard let value, !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(value) ?? Int.max
    }

    /// `name[=value]` items of a field, names lowercased, quoted values unquoted; commas inside quotes kept.
    static func directives(_ field: String) -> [(name: String, value: String?)] {
        var directives: [(name: String, value: String?)] = []
        var item = ""
        var inQuotes = false
        var escaped = false
        func finish() {
            let trimmed = item.trimmingWhitespace
            item = ""
            guard !trimmed.isEmpty else { return }
            guard let equals = trimmed.firstIndex(of: "=") else {
                directives.append((trimmed.lowercased(), nil))
                return
            }
            var value = trimmed[trimmed.index(after: equals)...].trimmingWhitespace
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast().filter { $0 != "\\" })
            }
            directives.append((trimmed[..<equals].trimmingWhitespace.lowercased(), value))
        }
        for character in field {
            if escaped {
                escaped = false
            } else if inQuotes, character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == ",", !inQuotes {
                finish()
                continue
            }
            item.append(character)
        }
        finish()
        return directives
    }
}
