extension HTTPHeaderFields {
    /// The separate `Set-Cookie` fields of a value a transport joined with commas (FoundationNetworking keeps one
    /// value per name): a comma starts a new cookie only when `name=` follows it, never inside an `Expires` date.
    package static func splitJoinedSetCookie(_ value: String) -> [String] {
        var fields: [String] = []
        var current = Substring(value)[...]
        var searchStart = current.startIndex
        while let comma = current[searchStart...].firstIndex(of: ",") {
            let rest = current[current.index(after: comma)...].drop { $0 == " " || $0 == "\t" }
            let token = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
            if !token.isEmpty, rest.dropFirst(token.count).first == "=" {
                fields.append(String(current[..<comma]))
                current = rest
                searchStart = current.startIndex
            } else {
                searchStart = current.index(after: comma)
            }
        }
        fields.append(String(current))
        return fields.filter { !$0.trimmingWhitespace.isEmpty }
    }
}
