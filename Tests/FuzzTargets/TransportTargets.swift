import RestingCore
import RestingCurl
import RestingResilience

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// A WebSocket handshake's answer as `CurlClient` reads it itself: the head (before the first NUL), however its
    /// bytes are cut, reads the same; a chunked body (after it) decodes the same whole and cut, never past its
    /// limit, and fails typed rather than trapping (a size of 2^63 − 1 after a first chunk trapped once).
    static let upgradeAnswer = FuzzTarget(name: "upgrade-answer") { input, violation in
        let (head, body) = input.halves
        func readHead(_ chunks: [Data]) -> String {
            var reader = HTTPHeadReader()
            for chunk in chunks {
                switch Result(catching: { () throws(RestingError) in try reader.take(chunk) }) {
                case .success(let head?): return "\(head.status) \(head.headers.map(\.name))"
                case .success(nil): continue
                case .failure(let error): return "\(error)"
                }
            }
            return "incomplete"
        }
        let whole = readHead([head])
        if whole != readHead(head.cutAtPointsItPicks()) { violation("the head read differently cut: \(whole)") }
        let limit = 512
        func decode(_ chunks: [Data]) -> String {
            var decoder = ChunkedBodyDecoder(limit: Int64(limit))
            for chunk in chunks {
                if case .failure(let error) = Result(catching: { () throws(RestingError) in try decoder.take(chunk) }) {
                    return "\(error)"
                }
            }
            if decoder.body.count > limit { violation("\(decoder.body.count) bytes past the \(limit)-byte limit") }
            return "\(decoder.isComplete) \(decoder.body.count)"
        }
        let decoded = decode([body])
        if decoded != decode(body.cutAtPointsItPicks()) { violation("the body decoded differently cut: \(decoded)") }
    }

    /// A response's head and framing as `CurlClient` follows them: lines (split at LF) never let a trailer join the
    /// head's fields, and a chunked body's framing is followed the same whole and cut.
    static let responseHead = FuzzTarget(name: "response-head") { input, violation in
        let (head, body) = input.halves
        var reader = ResponseHeadReader()
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { Data($0) + [10] }
        lines.insert(Data("HTTP/1.1 200 OK\r\n".utf8), at: 0)
        var ended = false
        for line in lines {
            let before = reader.fields
            let step = line.withUnsafeBytes { reader.read($0.bindMemory(to: UInt8.self)) }
            if case .malformed = step { break }
            if ended, reader.phase == .trailers, reader.fields != before {
                violation("a line after the head joined its fields: \(line.text.debugDescription)")
            }
            if step == .ended { ended = true }
        }
        func follow(_ chunks: [Data]) -> ResponseFraming.State {
            var framing = ResponseFraming(status: 200, method: .get, headers: ["Transfer-Encoding": "chunked"])
            for chunk in chunks { _ = chunk.withUnsafeBytes { framing.consume($0) } }
            return framing.state
        }
        let whole = follow([body])
        if whole != follow(body.cutAtPointsItPicks()) { violation("the framing followed differently cut: \(whole)") }
    }

    /// Rate-limit fields (`RateLimit`, `RateLimit-Policy`, `RateLimit-Reset`, `X-RateLimit-*`), one `name: value` a
    /// line: a reset and a window are never negative nor past a server duration's ceiling, a quota never negative.
    static let rateLimitFields = FuzzTarget(name: "rate-limit") { input, violation in
        let names = [
            "RateLimit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
        ]
        var headers = HTTPHeaderFields()
        for (index, line) in input.text.split(separator: "\n").enumerated() {
            headers.add(name: names[index % names.count], value: String(line))
        }
        let fields = RateLimitFields(headers, now: Date(timeIntervalSince1970: 1_800_000_000))
        let ceiling = ServerDuration.Use.rateLimitReset.ceiling
        if let (count, reset) = fields.remaining, count < 0 || reset < .zero || reset > ceiling {
            violation("remaining \(count), reset \(reset)")
        }
        if let (requests, window) = fields.policy, requests <= 0 || window <= .zero || window > ceiling {
            violation("policy \(requests) per \(window)")
        }
    }

    /// `Alt-Svc` fields as a server sends them (one line each), as `CurlClient` reads them when it discovers HTTP/3:
    /// a lifetime between zero and a day or none, never a crash; and whatever they say, one origin's state stays
    /// one entry, routed tcp, probe or HTTP/3 — never HTTP/3 without a probe that won.
    static let alternativeServices = FuzzTarget(name: "alt-svc") { input, violation in
        let (host, port, origin) = ("api.example.com", 443, "https://api.example.com:443")
        let services = AlternativeServices()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (index, line) in input.text.split(separator: "\n").enumerated() {
            let field = String(line)
            if let lifetime = AlternativeServices.http3Lifetime(in: field, host: host, port: port),
                lifetime < .zero || lifetime > ServerDuration.Use.alternativeService.ceiling
            {
                violation("a lifetime of \(lifetime) from \(field.debugDescription)")
            }
            let now = start + Double(index)
            services.learn(field, origin: origin, host: host, port: port, route: .tcp, version: "2", now: now)
            if services.route(to: origin, now: now) == .http3 {
                violation("HTTP/3 only without a probe, after \(field.debugDescription)")
            }
        }
        if services.count > 1 { violation("\(services.count) entries for one origin") }
    }

    /// An Alt-Svc file's text (curl's format) as `CurlClient` reads it back from disk, where anyone may have written
    /// it: the entries it keeps, never a crash; each one's port in range, its expiry within a day, and a date that
    /// writes and reads back as itself (what is kept is what the client writes at shutdown).
    static let alternativeServicesFile = FuzzTarget(name: "alt-svc-file") { input, violation in
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for entry in AlternativeServicesFile.entries(in: input.text, now: now) {
            if !(1...65_535).contains(entry.port) || entry.host.isEmpty { violation("\(entry)") }
            if entry.expiry <= now || entry.expiry > now + ServerDuration.Use.alternativeService.ceiling.seconds {
                violation("\(entry.expiry) kept at \(now)")
            }
            let written = AlternativeServicesFile.format(entry.expiry).split(separator: " ")
            if written.count != 2 || AlternativeServicesFile.date(day: written[0], time: written[1]) != entry.expiry {
                violation("\(entry.expiry) does not read back from \(written)")
            }
        }
    }

    /// A URL's origin as the resilience links key calls by it, read in one pass from its text (a redirect's target is
    /// a server's): the same as `Origin`'s description, or nothing where `Origin` has none.
    static let originKey = FuzzTarget(name: "origin-key") { input, violation in
        guard let url = URL(string: input.text) else { return }
        let key = Origin.key(of: url)
        if key != Origin(url)?.description {
            violation("\(input.text.debugDescription): \(key ?? "nil") against \(Origin(url)?.description ?? "nil")")
        }
    }

    /// An envelope's key path (before the first NUL) read out of any body: a value or a decoding error, never a
    /// crash, and only from a body that is JSON.
    static let envelope = FuzzTarget(name: "envelope") { input, violation in
        let (keyPath, body) = input.halves
        let reading = EnvelopeReading<JSONValue>(keyPath: keyPath.text)
        guard (try? reading.read(body, JSONDecoder())) != nil else { return }
        if (try? JSONDecoder().decode(JSONValue.self, from: body)) == nil {
            violation("a value read out of a body that is not JSON: \(body.text.debugDescription)")
        }
    }
}
