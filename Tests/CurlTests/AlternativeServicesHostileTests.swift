import Foundation
import Testing

@testable import RestingCurl

/// Alt-Svc discovery's state machine and parser against what a server, or many calls at once, can do to them (no
/// socket).
@Suite("Alternative services, hostile: lapsed and cleared advertisements, concurrent calls, odd fields")
struct AlternativeServicesHostileTests {
    let origin = "https://api.example.com:443"
    let start = Date(timeIntervalSince1970: 2_000_000)

    func learn(
        _ services: AlternativeServices, _ field: String?, route: AlternativeServices.Route = .tcp,
        version: String? = "2", at offset: Double
    ) {
        services.learn(
            field, origin: origin, host: "api.example.com", port: 443, route: route, version: version,
            now: start + offset)
    }

    @Test("an advertisement that expired, heard again later, is probed again: the old confirmation does not carry over")
    func confirmationDoesNotOutliveItsAdvertisement() {
        let services = AlternativeServices()
        learn(services, #"h3=":443"; ma=60"#, at: 0)
        learn(services, #"h3=":443"; ma=60"#, route: .probe, version: "3", at: 1)
        #expect(services.route(to: origin, now: start + 2) == .http3)
        #expect(services.route(to: origin, now: start + 120) == .tcp, "expired")
        // Twenty minutes later, over TCP, the server advertises h3 again (its QUIC may be gone since).
        learn(services, #"h3=":443"; ma=60"#, at: 1200)
        #expect(
            services.route(to: origin, now: start + 1201) == .probe,
            "\"the first call since the advertisement\" races on a connection of its own, not HTTP/3 only")
    }

    @Test("Alt-Svc: clear, then a new advertisement: the next call probes, it is not HTTP/3 only")
    func confirmationDoesNotOutliveClear() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#, at: 0)
        learn(services, #"h3=":443""#, route: .probe, version: "3", at: 1)
        learn(services, "clear", route: .http3, version: "3", at: 2)
        #expect(services.route(to: origin, now: start + 3) == .tcp)
        learn(services, #"h3=":443""#, at: 4)
        #expect(services.route(to: origin, now: start + 5) == .probe, "confirmation survived `clear`")
    }

    @Test("one probe at a time: a call while it is out goes over TCP, and its HTTP/3 answer confirms the alternative")
    func oneProbeAtATime() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#, at: 0)
        #expect(services.route(to: origin, now: start + 1) == .probe)
        #expect(services.route(to: origin, now: start + 1) == .tcp, "a second call at the same moment")
        learn(services, #"h3=":443""#, route: .tcp, version: "2", at: 1.5)
        learn(services, #"h3=":443""#, route: .probe, version: "3", at: 2)
        #expect(services.route(to: origin, now: start + 3) == .http3)
    }

    @Test("a probe that never answers gives way to another after its lifetime")
    func lostProbeGivesWay() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#, at: 0)
        #expect(services.route(to: origin, now: start + 1) == .probe)
        #expect(services.route(to: origin, now: start + 30) == .tcp)
        #expect(services.route(to: origin, now: start + 31) == .probe)
        services.settleProbe(origin, now: start + 32)
        #expect(services.route(to: origin, now: start + 33) == .probe, "a failed probe's call settles it at once")
    }

    @Test("ma as a quoted-string (RFC 7838 §3: parameter = token \"=\" ( token / quoted-string ))")
    func quotedMaximumAge() {
        #expect(
            AlternativeServices.http3Lifetime(in: #"h3=":443"; ma="3600""#, host: "api.example.com", port: 443)
                == .seconds(3600))
    }

    @Test("a huge field, twenty thousand entries, a million-digit ma, non-ASCII digits and hosts, signs, a cased clear")
    func holds() {
        let host = "api.example.com"
        let many = (0..<20_000).map { #"h3=":\#($0 + 1000)"; ma=1"# }.joined(separator: ", ") + #", h3=":443"; ma=7"#
        #expect(AlternativeServices.http3Lifetime(in: many, host: host, port: 443) == .seconds(7))
        let digits = #"h3=":443"; ma="# + String(repeating: "9", count: 1_000_000)
        #expect(AlternativeServices.http3Lifetime(in: digits, host: host, port: 443) == .seconds(86400))
        #expect(AlternativeServices.http3Lifetime(in: #"h3=":４４３""#, host: host, port: 443) == nil)
        #expect(AlternativeServices.http3Lifetime(in: #"h3="évil.example:443""#, host: host, port: 443) == nil)
        #expect(AlternativeServices.http3Lifetime(in: #"h3=":443"; ma=+5"#, host: host, port: 443) == .zero)
        #expect(AlternativeServices.http3Lifetime(in: " CLEAR ", host: host, port: 443) == .zero)
        #expect(AlternativeServices.http3Lifetime(in: #"h3="api.example.com.evil:443""#, host: host, port: 443) == nil)
        // Broken marks for a million origins stay bounded too.
        let services = AlternativeServices()
        for index in 0..<5_000 { services.markBroken("https://h\(index).example:443", now: start) }
        #expect(services.count <= 1_000)
    }
}
