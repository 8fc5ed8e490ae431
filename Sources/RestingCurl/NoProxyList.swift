import RestingCore

/// A ``CurlConfiguration/Proxy/url(_:noProxy:)`` list as libcurl reads it (`CURLOPT_NOPROXY`): the forms other tools
/// take are written in libcurl's — `*.corp.example` as `.corp.example` (the domain's hosts), `[::1]` as `::1` — and
/// a form libcurl would silently match nothing with is refused when the client is made, since a request it was meant
/// to keep direct would go to the proxy instead: a port (`host:8080`; libcurl compares hosts only) or a `*` that
/// is not the whole entry nor its first label.
enum NoProxyList {
    /// `entries` in libcurl's form, joined with commas; `nil` when there are none. A `*` among others is the whole
    /// list (libcurl takes `*` only alone).
    static func curlForm(_ entries: [String]) throws(RestingError) -> String? {
        if entries.contains(where: { $0.trimmingWhitespace == "*" }) { return "*" }
        var written: [String] = []
        for entry in entries {
            let trimmed = entry.trimmingWhitespace
            guard !trimmed.isEmpty else { continue }
            written.append(try curlForm(of: trimmed))
        }
        return written.isEmpty ? nil : written.joined(separator: ",")
    }

    private static func curlForm(of entry: String) throws(RestingError) -> String {
        if entry == "*" { return entry }
        var form = entry
        if form.hasPrefix("*.") { form.removeFirst() }
        if form.hasPrefix("["), let close = form.firstIndex(of: "]") {
            // A bracketed IPv6 address, perhaps with a CIDR prefix after it.
            form = String(form[form.index(after: form.startIndex)..<close]) + form[form.index(after: close)...]
            guard form.contains(":") else { throw refused(entry, "a bracketed name") }
            return form
        }
        guard !form.contains("*") else { throw refused(entry, "a * inside a name") }
        // An IPv6 address has two colons or more; one colon is a port.
        guard form.filter({ $0 == ":" }).count != 1 else {
            throw refused(entry, "a port (libcurl compares hosts only)")
        }
        return form
    }

    private static func refused(_ entry: String, _ what: String) -> RestingError {
        .unsupported(feature: "the no-proxy entry '\(entry)' with \(what)", transport: "CurlClient")
    }
}
