import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPDate {
    /// A cookie's `Expires` date, read with RFC 6265 §5.1.1's lenient algorithm (servers send every format
    /// ever invented): the first time, day of month, month and year tokens found, in any order.
    package static func parseCookieDate(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isCookieDateDelimiter) {
            if time == nil, let found = cookieTime(token) {
                time = found
            } else if dayOfMonth == nil, let found = leadingNumber(token, digits: 1...2) {
                dayOfMonth = found
            } else if month == nil, token.count >= 3,
                let index = months.firstIndex(where: { name in
                    zip(name.utf8, token.prefix(3)).allSatisfy { $0 | 0x20 == $1 | 0x20 }
                })
            {
                month = index + 1
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, time.second <= 59 else { return nil }
        return date(
            year: year, month: month, day: dayOfMonth, hour: time.hour, minute: time.minute, second: time.second)
    }

    private static func isCookieDateDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// The number that `token` starts with, when it has as many digits as allowed and no digit follows them.
    private static func leadingNumber(_ token: Substring.UTF8View, digits: ClosedRange<Int>) -> Int? {
        let count = digitCount(token)
        guard digits.contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func digitCount(_ token: Substring.UTF8View) -> Int {
        token.prefix { (0x30...0x39).contains($0) }.count
    }

    /// `h:m:s`, each of one or two digits, optionally followed by a non-digit and anything.
    private static func cookieTime(_ token: Substring.UTF8View) -> (hour: Int, minute: Int, second: Int)? {
        var rest = token
        var parts: [Int] = []
        while parts.count < 3 {
            if !parts.isEmpty {
                guard rest.first == 0x3A else { return nil }  // ':'
                rest = rest.dropFirst()
            }
            guard let number = leadingNumber(rest, digits: 1...2) else { return nil }
            parts.append(number)
            rest = rest.dropFirst(digitCount(rest))
        }
        return (parts[0], parts[1], parts[2])
    }
}
