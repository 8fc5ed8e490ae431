#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
package enum RetryAfter {
    /// The delay the server asks for, clamped to ``ServerDuration/Use/retryAfter``'s ceiling (an hour); `nil` when
    /// the value is neither form.
    package static func delay(_ value: String, now: Date) -> Duration? {
        if let seconds = ServerDuration.parse(value, for: .retryAfter) { return seconds }
        guard let date = HTTPDate.parse(value.trimmingWhitespace, now: now) else { return nil }
        return ServerDuration.until(date, from: now, for: .retryAfter)
    }
}
