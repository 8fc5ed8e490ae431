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
package enum AlternativeServicesFile {
    /// One advertisement: HTTP/3 on `host`:`port` until `expiry`.
    package struct Entry: Equatable {
        package var host: String
        package var port: Int
        package var expiry: Date
    }

    /// The most of a file that is read.
    static let maximumSize = 1 << 20

    /// The advertisements in `path` that are live at `now`, each until at most a day from `now`; none when the file
    /// is missing or unreadable.
    static func entries(inFile path: String, now: Date) -> [Entry] {
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
        return entries(in: String(decoding: bytes.prefix(count), as: UTF8.self), now: now)
    }

    /// The advertisements in a file's `text` that are live at `now`, each until at most a day from `now`.
    package static func entries(in text: String, now: Date) -> [Entry] {
        let latest = now + ServerDuration.Use.alternativeService.ceiling.seconds
        return text.split(whereSeparator: \.isNewline).compactMap {
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
    package static func date(day: Substring, time: Substring) -> Date? {
        // ASCII digits only: `Int` would take a sign.
        guard day.utf8.count == 8, time.utf8.count == 8,
            (day + time).utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x3A })
        else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let year = Int(day.prefix(4)), let month = Int(day.dropFirst(4).prefix(2)),
            let dayOfMonth = Int(day.suffix(2)), let hour = Int(clock[0]), let minute = Int(clock[1]),
            let second = Int(clock[2])
        else { return nil }
        return HTTPDate.date(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
    }

    /// `date` as `YYYYMMDD HH:MM:SS`, UTC.
    package static func format(_ date: Date) -> String {
        let (year, month, day, second) = HTTPDate.fields(of: date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day)) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
    }
}
