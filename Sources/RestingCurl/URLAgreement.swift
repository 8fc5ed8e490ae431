import CCurl
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

/// Whether libcurl reads a request's URL as going where Foundation's `URL` says it goes.
///
/// Everything above the transport — the credential boundary, cookies, the cache, the redirect rules — decides by
/// Foundation's parse of the URL (its scheme, host and port); libcurl connects to its own parse of the string. Where
/// the two read another scheme, host or port, the request is refused before libcurl sees it, so that no decision
/// made about one origin sends a request, and its credentials, to another. Measured cases: `http:/a.com/` (no host
/// for Foundation, `a.com` for libcurl), `http://0x7f.1/` and `http://127.1/` (libcurl's `127.0.0.1`). Spellings of
/// the same host agree: case, IPv6 brackets and zero compression.
///
/// A value per driver, on its thread: the origins found to agree are remembered (their `scheme://authority` text,
/// which alone decides the reading: both parsers end an authority at the first `/`, `?` or `#`), so that libcurl's
/// parser runs once per origin rather than once per request.
struct URLAgreement {
    /// The `scheme://authority` bytes that agreed; cleared when full, so that no number of hosts grows it.
    private var agreed: Set<[UInt8]> = []
    /// The last of them: most requests go where the one before went, and a byte comparison answers them.
    private var last: [UInt8] = []
    private let capacity = 64

    /// ``check(_:_:)``, answered from the origins that agreed before when `url`'s is one of them.
    mutating func check(_ url: URL) throws(RestingError) {
        let string = url.absoluteString
        if Self.hasOrigin(last, string) { return }
        guard let origin = Self.origin(of: string) else { return try Self.check(url, string) }
        if !agreed.contains(origin) {
            try Self.check(url, string)
            if agreed.count >= capacity { agreed.removeAll(keepingCapacity: true) }
            agreed.insert(origin)
        }
        last = origin
    }

    /// Whether `string` begins with the `scheme://authority` bytes `origin`, its authority ending there.
    private static func hasOrigin(_ origin: [UInt8], _ string: String) -> Bool {
        guard !origin.isEmpty else { return false }
        var bytes = string.utf8.makeIterator()
        for byte in origin where bytes.next() != byte { return false }
        guard let next = bytes.next() else { return true }
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
    }

    /// The `scheme://authority` bytes of `string` (both parsers end an authority at its first `/`, `?` or `#`), or
    /// `nil` when it has no `://`.
    private static func origin(of string: String) -> [UInt8]? {
        let bytes = Array(string.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: Array("://".utf8))
        else { return nil }
        let end =
            bytes[(colon + 3)...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.endIndex
        return Array(bytes[..<end])
    }

    /// Throws ``/RestingCore/RestingError/invalidURL(_:reason:)`` unless libcurl reads `string` (`url`'s text) with
    /// `url`'s scheme, host (and IPv6 zone) and port.
    static func check(_ url: URL, _ string: String) throws(RestingError) {
        // Out of memory: libcurl's own parse of the string, next, fails the transfer.
        guard let parsed = curl_url() else { return }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, string, 0) == CURLUE_OK else {
            throw refusal(url, "libcurl cannot read it")
        }
        let scheme = part(of: parsed, CURLUPART_SCHEME)?.lowercased()
        let port = part(of: parsed, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) }
        guard let host = part(of: parsed, CURLUPART_HOST), let foundationHost = url.host, let scheme,
            scheme == url.scheme?.lowercased()
        else { throw refusal(url, "libcurl and Foundation read a different scheme or host in it") }
        let zone = part(of: parsed, CURLUPART_ZONEID).map { "%" + $0 } ?? ""
        guard normalized(host) + zone.lowercased() == normalized(foundationHost) else {
            throw refusal(url, "libcurl and Foundation read a different host in it")
        }
        let foundationPort = url.port ?? (scheme == "https" ? 443 : 80)
        guard port == foundationPort else { throw refusal(url, "libcurl and Foundation read a different port in it") }
    }

    private static func part(of parsed: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(parsed, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    /// A host as both parsers may spell it: lowercase, without IPv6 brackets, an IPv6 address in its shortest form.
    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard host.contains(":") else { return host }
        let zone = host.firstIndex(of: "%").map { String(host[$0...]) } ?? ""
        let address = String(host.prefix { $0 != "%" })
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return host }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return host }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + zone
    }

    private static func refusal(_ url: URL, _ reason: String) -> RestingError {
        .invalidURL(RedactionPolicy.default.url(url), reason: reason)
    }
}
