/// `Accept` media ranges (RFC 9110 §12.5.1) against a `Content-Type`.
enum MediaRange {
    static func accepts(_ accept: String, _ contentType: String) -> Bool {
        let type = mediaType(contentType)
        guard !type.isEmpty else { return false }
        return accept.split(separator: ",").contains { range in
            let parts = range.split(separator: ";").map(\.trimmingWhitespace)
            guard let pattern = parts.first?.lowercased(), !parts.dropFirst().contains(where: isZeroQuality) else {
                return false
            }
            if pattern == "*/*" || pattern == type { return true }
            return pattern.hasSuffix("/*") && type.hasPrefix(pattern.dropLast())
        }
    }

    private static func mediaType(_ contentType: String) -> String {
        contentType.split(separator: ";").first.map { $0.trimmingWhitespace.lowercased() } ?? ""
    }

    private static func isZeroQuality(_ parameter: String) -> Bool {
        let pair = parameter.split(separator: "=").map(\.trimmingWhitespace)
        return pair.count == 2 && pair[0].lowercased() == "q" && (Double(pair[1]) ?? 1) == 0
    }
}
