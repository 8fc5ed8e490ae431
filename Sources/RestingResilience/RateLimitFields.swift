import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a response says of the client's quota, in the fields servers send for it: the IETF draft's `RateLimit` and
/// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, the structured form `"default";r=5;t=30` and the
/// earlier `limit=10, remaining=5, reset=30`), its first form's `RateLimit-Remaining` / `RateLimit-Reset`, and the
/// common `X-RateLimit-Remaining` / `X-RateLimit-Reset` (whose reset is seconds to wait, or a Unix time when it is
/// one). Values that do not parse are ignored, never guessed; a reset is clamped like every server's duration
/// (``ServerDuration/Use/rateLimitReset``).
package struct RateLimitFields {
    /// Requests left before the reset, and the time until it.
    package var remaining: (count: Int, reset: Duration)?
    /// The server's quota: `requests` per `window`.
    package var policy: (requests: Int, window: Duration)?

    /// Whether the response said nothing of a quota.
    var isEmpty: Bool { remaining == nil && policy == nil }

    /// The fields of `headers`, read at `now` (for a reset given as a Unix time).
    package init(_ headers: HTTPHeaderFields, now: Date) {
        if let field = headers["RateLimit"], let (count, reset) = Self.remaining(inRateLimit: field) {
            remaining = (count, ServerDuration.clamped(seconds: Double(reset), for: .rateLimitReset))
        } else if let count = Self.integer(headers["RateLimit-Remaining"] ?? headers["X-RateLimit-Remaining"]),
            let reset = Self.integer(headers["RateLimit-Reset"] ?? headers["X-RateLimit-Reset"])
        {
            // A reset past a billion seconds is a Unix time (GitHub's), not a wait of thirty years.
            let wait =
                reset > 1_000_000_000
                ? ServerDuration.until(Date(timeIntervalSince1970: Double(reset)), from: now, for: .rateLimitReset)
                : ServerDuration.clamped(seconds: Double(reset), for: .rateLimitReset)
            remaining = (count, wait)
        }
        if let field = headers["RateLimit-Policy"], let (requests, window) = Self.quota(inPolicy: field),
            requests > 0, window > 0
        {
            policy = (requests, ServerDuration.clamped(seconds: Double(window), for: .rateLimitReset))
        }
    }

    /// The least remaining of the `RateLimit` field's policies, and its reset: `"a";r=5;t=30, "b";r=50;t=3600` or
    /// `limit=10, remaining=5, reset=30`.
    private static func remaining(inRateLimit field: String) -> (Int, Int)? {
        let items = members(field)
        if let remaining = items.compactMap({ integer($0["remaining"]) }).first,
            let reset = items.compactMap({ integer($0["reset"]) }).first
        {
            return (remaining, reset)
        }
        return items.compactMap { item -> (Int, Int)? in
            guard let remaining = integer(item["r"]), let reset = integer(item["t"]) else { return nil }
            return (remaining, reset)
        }.min { $0.0 < $1.0 }
    }

    /// The strictest quota of a `RateLimit-Policy` field: `"default";q=100;w=60` or `100;w=60`.
    private static func quota(inPolicy field: String) -> (Int, Int)? {
        members(field).compactMap { item -> (Int, Int)? in
            guard let requests = integer(item["q"] ?? item[""]), let window = integer(item["w"]) else { return nil }
            return (requests, window)
        }.min { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) }
    }

    /// Whether `headers` may hold a quota's field — one whose name starts with `RateLimit` or `X-RateLimit`, in any
    /// case — or one of `others`.
    static func mayBeIn(_ headers: HTTPHeaderFields, or others: [String]) -> Bool {
        headers.contains { field in
            startsWithRateLimit(field.name) || others.contains { field.name.caseInsensitiveEquals($0) }
        }
    }

    /// Whether `name` starts with `RateLimit` or `X-RateLimit`, in any case.
    private static func startsWithRateLimit(_ name: String) -> Bool {
        // Over the contiguous bytes: asked of every field of every answer, where the UTF-8 view's slices and
        // iterators cost more than the comparison.
        var name = name
        return name.withUTF8 { bytes in
            let start = bytes.first.map { $0 | 0x20 == UInt8(ascii: "x") } == true ? 2 : 0
            guard bytes.count >= start + rateLimit.count else { return false }
            return rateLimit.indices.allSatisfy { bytes[start + $0] | 0x20 == rateLimit[$0] }
        }
    }

    private static let rateLimit = Array("ratelimit".utf8)

    /// A structured field's members split at commas, each as its parameters (`name=value`, split at semicolons);
    /// a bare leading value (a token, a quoted name or a number) is the parameter named "".
    private static func members(_ field: String) -> [[String: String]] {
        field.split(separator: ",").map { member in
            var parameters: [String: String] = [:]
            for (index, part) in member.split(separator: ";").enumerated() {
                let pair = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace }
                if pair.count == 2 {
                    parameters[pair[0].lowercased()] = pair[1]
                } else if index == 0, let value = pair.first {
                    parameters[""] = value
                }
            }
            return parameters
        }
    }

    /// A non-negative decimal integer of at most ten digits (a Unix time has ten), or `nil`.
    private static func integer(_ value: String?) -> Int? {
        guard let value = value?.trimmingWhitespace, !value.isEmpty, value.utf8.count <= 10,
            value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(value)
    }
}
