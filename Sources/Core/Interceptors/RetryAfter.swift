import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
enum RetryAfter {
    static func delay(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = httpDate(trimmed) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }

    /// IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
    static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
