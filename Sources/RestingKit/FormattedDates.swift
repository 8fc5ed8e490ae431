import Foundation
import RestingCore

extension FormDateEncodingStrategy {
    /// Dates as `formatter` writes them, in query, form and multipart fields (`URLQueryEncoder`,
    /// `MultipartFormDataEncoder`).
    ///
    /// ```swift
    /// let day = DateFormatter()
    /// day.locale = Locale(identifier: "en_US_POSIX")
    /// day.timeZone = TimeZone(identifier: "UTC")
    /// day.dateFormat = "yyyy-MM-dd"
    /// var encoder = URLQueryEncoder()
    /// encoder.dateEncodingStrategy = .formatted(day)   // ?from=2024-05-01
    /// ```
    ///
    /// It lives here rather than beside the other strategies because `DateFormatter` belongs to the whole of
    /// Foundation, which `RestingCore`, `RestingMultipart` and `RestingCurl` leave out of the process.
    public static func formatted(_ formatter: DateFormatter) -> Self {
        .custom { formatter.string(from: $0) }
    }
}
