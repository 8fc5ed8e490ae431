#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
package enum RetryAfter {
    /// The delay the server asks for; `nil` when the value is neither form. A number of seconds too large
    /// for any clock is ``Duration/effectivelyForever`` — a request not to retry — never "at once".
    package static func delay(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingWhitespace
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int64(trimmed), seconds < Duration.effectivelyForever.components.seconds else {
                return .effectivelyForever
            }
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        let milliseconds = (date.timeIntervalSince(now) * 1000).rounded(.up)
        guard milliseconds < Duration.effectivelyForever.seconds * 1000 else { return .effectivelyForever }
        return .milliseconds(max(0, Int64(milliseconds)))
    }
}
