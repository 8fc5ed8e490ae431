import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The advertisements of HTTP/3 a client keeps between runs (``CurlConfiguration/alternativeServicesFile``), in
/// curl's own alt-svc file format, so that `curl --alt-svc FILE` and the client can share one file — a line per
/// origin:
///
/// ```text
/// # comment
/// h2 api.example.com 443 h3 api.example.com 443 "20261207 09:30:00" 0 0
/// ```
///
/// (the protocol, host and port it was heard from; the alternative's; when it lapses, UTC; two flags). Only what the
/// client itself takes is read: HTTP/3 on the origin's own host and port. Whatever the file holds, reading it is
/// bounded — its first ``maximumSize`` bytes, each lifetime clamped to a day — and a line that does not parse is
/// skipped: the file is a hint, never trusted further than an `Alt-Svc` field would be.
enum AlternativeServicesFile {
    /// One advertisement: HTTP/3 on `host`:`port` until `expiry`.
    struct Entry: Equatable {
        var host: String
        var port: Int
        var expiry: Date
    }

    /// The most of a file that is read.
    static let maximumSize = 1 << 20

    /// The advertisements in `path` that are live at `now`, each until at most a day from `now`; none when the file
    /// is missing or unreadable.
    static func entries(in path: String, now: Date) -> [Entry] {
        // Non-blocking: a FIFO or a device named by mistake returns what it has, never a wait.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return [] }
        let size = min(maximumSize, max(0, Int(status.st_size)))
        var bytes = [UInt8](repeating: 0, count: size)
        var count = 0
        while count < size {
            let got = bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return -1 }
                return read(descriptor, base + count, size - count)
            }
            guard got > 0 else { break }
            count += got
        }
        let latest = now + ServerDuration.Use.alternativeService.ceiling.seconds
        return String(decoding: bytes.prefix(count), as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
            guard var entry = parse($0), entry.expiry > now else { return nil }
            entry.expiry = min(entry.expiry, latest)
            return entry
        }
    }

    /// Writes `entries` to `path` whole or not at all — a new file of its own beside it, readable by its owner only,
    /// renamed over it — where `path` is a regular file or nothing: never through a link, over a device, a FIFO or a
    /// folder, nor into a file someone put at the temporary name.
    static func save(_ entries: [Entry], to path: String) throws(RestingError) {
        var text = "# Alt-Svc cache: HTTP/3 advertisements heard by RestingKit's CurlClient (curl's alt-svc format)\n"
        for entry in entries {
            let host = entry.host.contains(":") ? "[\(entry.host)]" : entry.host
            text += "h2 \(host) \(entry.port) h3 \(host) \(entry.port) \"\(format(entry.expiry))\" 0 0\n"
        }
        let failed = { (what: String) in
            RestingError.unsupported(
                feature: "writing the Alt-Svc cache \(what) (errno \(errno))", transport: "CurlClient")
        }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw failed("over \(path), which is not a regular file")
        }
        // mkstemp: a name no one else holds (O_EXCL), mode 0600.
        var template = Array((path + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { name in name.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw failed("beside \(path)") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = text.withUTF8 { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == text.utf8.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failed("to \(path)")
        }
    }

    /// One line: `ALPN host port h3 host port "YYYYMMDD HH:MM:SS" persist priority`, the alternative on the origin's
    /// own host and port; `nil` for any other line.
    static func parse(_ line: Substring) -> Entry? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 10, ["h1", "h2"].contains(fields[0]), fields[3] == "h3",
            let host = host(fields[1]), host == self.host(fields[4]),
            let port = Int(fields[2]), (1...65_535).contains(port), fields[5] == fields[2],
            fields[6].first == "\"", fields[7].last == "\"",
            let expiry = date(day: fields[6].dropFirst(), time: fields[7].dropLast())
        else { return nil }
        return Entry(host: host, port: port, expiry: expiry)
    }

    /// A host as the file writes it, lowercased, IPv6 brackets removed; `nil` for one with characters no host has.
    private static func host(_ field: Substring) -> String? {
        var host = field.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let allowed = host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x2E
                || byte == 0x3A || byte == 0x5F
        }
        return allowed && !host.isEmpty && host.utf8.count <= 253 ? host : nil
    }

    /// `20261207` and `09:30:00`, UTC.
    static func date(day: Substring, time: Substring) -> Date? {
        // ASCII digits only: `Int` would take a sign.
        guard day.utf8.count == 8, time.utf8.count == 8,
            (day + time).utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x3A })
        else { return nil }
        func number(_ text: Substring) -> Int? { Int(text) }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let year = number(day.prefix(4)), let month = number(day.dropFirst(4).prefix(2)),
            let dayOfMonth = number(day.suffix(2)), let hour = number(clock[0]), let minute = number(clock[1]),
            let second = number(clock[2]), (1...12).contains(month), (1...31).contains(dayOfMonth),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        return Date(timeIntervalSince1970: Double(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    /// `date` as `YYYYMMDD HH:MM:SS`, UTC.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (days, rest) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day)) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
