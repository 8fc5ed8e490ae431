#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP dates (RFC 9110 §5.6.7), read without `DateFormatter`: locale-free, and without the part of Foundation
/// that carries it.
package enum HTTPDate {
    /// An HTTP date (RFC 9110 §5.6.7), always in GMT: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the
    /// obsolete forms recipients must accept, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
    /// `Sun Nov  6 08:49:37 1994`. A two-digit year more than 50 years after `now` is in the past century.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        let fields = text.split(separator: " ")
        switch fields.count {
        case 6 where fields[0].hasSuffix(",") && fields[5] == "GMT":
            guard let day = Int(fields[1]), fields[1].count == 2, let month = month(fields[2]),
                let year = Int(fields[3]),
                fields[3].count == 4
            else { return nil }
            return date(year: year, month: month, day: day, time: fields[4])
        case 4 where fields[0].hasSuffix(",") && fields[3] == "GMT":
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let day = Int(parts[0]),
                let month = month(parts[1]), let shortYear = Int(parts[2])
            else { return nil }
            return date(year: fullYear(shortYear, now: now), month: month, day: day, time: fields[2])
        case 5:
            guard let month = month(fields[1]), let day = Int(fields[2]), let year = Int(fields[4]),
                fields[4].count == 4
            else {
                return nil
            }
            return date(year: year, month: month, day: day, time: fields[3])
        default:
            return nil
        }
    }

    /// `date` as an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func format(_ date: Date) -> String {
        let (year, month, day, secondOfDay) = fields(of: date)
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) \(twoDigits(secondOfDay / 3_600)):"
            + "\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    /// The GMT calendar fields of `date`: its year, month, day and second of the day.
    package static func fields(of date: Date) -> (year: Int, month: Int, day: Int, secondOfDay: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let (year, month, day) = civil(daysSinceEpoch: days)
        return (year, month, day, seconds - days * 86_400)
    }

    package static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: Substring) -> Int? {
        months.firstIndex(of: String(name)).map { $0 + 1 }
    }

    private static func fullYear(_ shortYear: Int, now: Date) -> Int {
        let currentYear = civil(daysSinceEpoch: Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        let candidate = currentYear - currentYear % 100 + shortYear
        return candidate > currentYear + 50 ? candidate - 100 : candidate
    }

    /// The instant of `HH:mm:ss` on that day in GMT, or `nil` when any field is out of range.
    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
            let minute = Int(clock[1]),
            let second = Int(clock[2])
        else { return nil }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// That instant in GMT, or `nil` when any field is out of range.
    package static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...12).contains(month), (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Proleptic Gregorian calendar arithmetic (H. Hinnant, "chrono-compatible low-level date algorithms").

    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - (153 * shifted + 2) / 5 + 1)
    }
}
