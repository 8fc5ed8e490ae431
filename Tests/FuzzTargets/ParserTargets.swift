import RestingAuthentication
import RestingCore
import RestingPagination

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// A template and a value for every variable: rendering never lets the value add a query or fragment.
    static let pathTemplate = FuzzTarget(name: "path-template") { input, violation in
        let (template, value) = input.halves
        guard let parsed = try? PathTemplate(template.text) else { return }
        guard let path = try? parsed.render({ _ in value.text }) else { return }
        let literals = parsed.template.replacingVariables()
        for mark in ["?", "#"] where path.containsBytes(of: mark) && !literals.containsBytes(of: mark) {
            violation("a variable's value put '\(mark)' into \(path.debugDescription)")
        }
    }

    /// Names and values percent-encoded by the form encoder decode back to themselves.
    static let formRoundTrip = FuzzTarget(name: "form-roundtrip") { input, violation in
        let items = input.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return URLQueryItem(name: String(pair[0]), value: pair.count > 1 ? String(pair[1]) : nil)
        }
        let encoded = URLQueryEncoder.percentEncoded(items)
        let decoded = encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return URLQueryItem(
                name: PercentEncoding.decode(String(parts[0])),
                value: parts.count > 1 ? PercentEncoding.decode(String(parts[1])) : nil)
        }
        if decoded != items { violation("\(items) came back as \(decoded) from \(encoded.debugDescription)") }
    }

    /// A header that validates has a token name and no CR, LF or NUL in its value.
    static let headerValidation = FuzzTarget(name: "headers") { input, violation in
        let (name, value) = input.halves
        let headers = HTTPHeaderFields([(name.text, value.text)])
        guard (try? headers.validate()) != nil else { return }
        if name.isEmpty || value.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            violation("accepted \(name.text.debugDescription): \(value.text.debugDescription)")
        }
    }

    /// `Content-Range` positions are never negative.
    static let contentRange = FuzzTarget(name: "content-range") { input, violation in
        let value = input.text
        if let first = ContentRange.firstByte(of: value), first < 0 {
            violation("first byte \(first) from \(value.debugDescription)")
        }
        if let length = ContentRange.completeLength(of: value), length < 0 {
            violation("length \(length) from \(value.debugDescription)")
        }
    }

    /// `Retry-After` (seconds or an HTTP date) never asks for a negative delay.
    static let retryAfter = FuzzTarget(name: "retry-after") { input, violation in
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        _ = HTTPDate.parse(input.text, now: now)
        if let delay = RetryAfter.delay(input.text, now: now), delay < .zero { violation("negative delay \(delay)") }
    }

    /// A redirect goes only to HTTP(S), and a hop to another origin carries no credential.
    static let redirectLocation = FuzzTarget(name: "redirect-location") { input, violation in
        guard let origin = URL(string: "https://api.example.com/start") else { return }
        let start = HTTPRequest(
            method: .get, url: origin, headers: ["Authorization": "Bearer s3cr3t", "X-Api-Key": "s3cr3t"])
        let response = HTTPDataResponse(status: 302, headers: HTTPHeaderFields([("Location", input.text)]))
        guard let next = RedirectFollower(maximumRedirects: 10).nextRequest(after: response, for: start) else { return }
        guard Origin(next.url) != nil else {
            return violation("followed to \(next.url.absoluteString.debugDescription)")
        }
        if !Origin.same(start.url, next.url), next.headers.contains(where: \.carriesCredential) {
            violation("credentials went to \(next.url.absoluteString.debugDescription)")
        }
    }

    /// A `WWW-Authenticate` field's challenges are made of its own bytes: every scheme and parameter name is in it,
    /// and a field of challenges written back the way a server would reads as the same challenges.
    static let authenticationChallenge = FuzzTarget(name: "authentication-challenge") { input, violation in
        let field = input.text
        guard let challenges = AuthenticationChallenge.parse(field) else { return }
        for challenge in challenges {
            if !field.containsBytes(of: challenge.scheme) { violation("scheme \(challenge.scheme.debugDescription)") }
            for name in challenge.parameters.keys where !field.lowercased().containsBytes(of: name) {
                violation("parameter \(name.debugDescription) is not in \(field.debugDescription)")
            }
        }
        let written = challenges.map { challenge in
            challenge.scheme
                + (challenge.token68.map { " " + $0 }
                    ?? (challenge.parameters.isEmpty ? "" : " ")
                        + challenge.parameters.sorted { $0.key < $1.key }.map { name, value in
                            let escaped = value.unicodeScalars.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : "\($0)" }
                            return "\(name)=\"\(escaped.joined())\""
                        }.joined(separator: ", "))
        }.joined(separator: ", ")
        if AuthenticationChallenge.parse(written) != challenges {
            violation("\(written.debugDescription) does not read back as \(challenges)")
        }
    }

    /// A `Link` header's target is always a piece of the header itself (`<>`, the empty reference, included).
    static let linkHeader = FuzzTarget(name: "link-header") { input, violation in
        let header = input.text
        if let target = LinkHeader.target(of: header, relation: "next"), !header.containsBytes(of: target) {
            violation("\(target.debugDescription) is not in \(header.debugDescription)")
        }
    }
}

extension String {
    /// The template's literal text, without its `{{…}}` variables.
    fileprivate func replacingVariables() -> String {
        var result = ""
        var rest = Substring(self)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            result += rest[..<open.lowerBound]
            rest = rest[close.upperBound...].drop { $0 == "}" }
        }
        return result + rest
    }
}
