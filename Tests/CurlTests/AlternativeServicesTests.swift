import Foundation
import Testing

@testable import RestingCurl

/// What a client makes of servers' `Alt-Svc` fields (RFC 7838) when it discovers HTTP/3: which advertisements count,
/// for how long, and how each origin's calls go from there — a state machine, tested without a socket.
/// One origin and a moment to start from, and what its server says at a time after it.
protocol AlternativeServicesFixture {}

extension AlternativeServicesFixture {
    var origin: String { "https://api.example.com:443" }
    var start: Date { Date(timeIntervalSince1970: 1_000_000) }

    func learn(
        _ services: AlternativeServices, _ field: String?, route: AlternativeServices.Route = .tcp,
        version: String? = "2", at offset: Double = 0
    ) {
        services.learn(
            field, origin: origin, host: "api.example.com", port: 443, route: route, version: version,
            now: start + offset)
    }
}

@Suite("Alternative services: Alt-Svc advertisements and the route of each origin's calls")
struct AlternativeServicesTests: AlternativeServicesFixture {

    @Test(
        "HTTP/3 on the origin's own host and port counts, for its ma (a day by default, a day at most)",
        arguments: [
            (#"h3=":443"; ma=3600"#, Duration?.some(.seconds(3600))),
            (#"h3=":443""#, .seconds(86400)),
            (#"h3="api.example.com:443"; ma=60"#, .seconds(60)),
            (#"h3="API.EXAMPLE.COM:443"; ma=60"#, .seconds(60)),
            (#"h2=":443", h3=":443"; ma=10; persist=1"#, .seconds(10)),
            (#"h3=":443"; ma=99999999999999999999"#, .seconds(86400)),
            (#"h3=":443"; ma=-5"#, .zero),
            (#"h3=":443"; ma=soon"#, .zero),
            ("clear", .zero),
            (#"h3=":8443"; ma=60"#, nil),
            (#"h3="cdn.example.net:443"; ma=60"#, nil),
            (#"h3-29=":443"; ma=60"#, nil),
            (#"h2=":443"; ma=60"#, nil),
            ("", nil),
            (#"h3"#, nil),
            (#"h3=":""#, nil),
        ])
    func lifetimes(field: String, lifetime: Duration?) {
        #expect(AlternativeServices.http3Lifetime(in: field, host: "api.example.com", port: 443) == lifetime)
    }

    @Test("an advertised origin's next call probes on a connection of its own; once over HTTP/3, calls go HTTP/3 only")
    func probeThenHTTP3() {
        let services = AlternativeServices()
        #expect(services.route(to: origin, now: start) == .tcp)
        learn(services, #"h3=":443"; ma=600"#)
        #expect(services.route(to: origin, now: start + 1) == .probe)
        learn(services, #"h3=":443"; ma=600"#, route: .probe, version: "3", at: 1)
        #expect(services.route(to: origin, now: start + 2) == .http3)
        #expect(
            services.route(to: origin, now: start + 601) == .tcp,
            "its lifetime, from the last advertisement, has passed")
    }

    @Test("a probe that lost its race marks the alternative broken for five minutes, advertised or not")
    func lostProbe() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#)
        learn(services, #"h3=":443""#, route: .probe, version: "2", at: 1)
        #expect(services.route(to: origin, now: start + 2) == .tcp)
        learn(services, #"h3=":443""#, at: 2)
        #expect(services.route(to: origin, now: start + 300) == .tcp)
        #expect(services.route(to: origin, now: start + 302) == .probe, "broken for five minutes, then probed again")
    }

    @Test("Alt-Svc: clear, or an answer without an alternative, leaves nothing to race")
    func clear() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#)
        learn(services, "clear", at: 1)
        #expect(services.route(to: origin, now: start + 2) == .tcp)
        learn(services, nil, at: 3)
        #expect(services.route(to: origin, now: start + 4) == .tcp)
    }

    @Test("an HTTP/3 call that could not connect marks the alternative broken")
    func markedBroken() {
        let services = AlternativeServices()
        learn(services, #"h3=":443""#)
        learn(services, #"h3=":443""#, route: .probe, version: "3", at: 1)
        services.markBroken(origin, now: start + 2)
        #expect(services.route(to: origin, now: start + 3) == .tcp)
        #expect(services.route(to: origin, now: start + 303) == .probe, "confirmed again by a probe only")
    }

    @Test("a server advertising a million origins' worth leaves the map bounded")
    func bounded() {
        let services = AlternativeServices()
        for index in 0..<5_000 {
            services.learn(
                #"h3=":443""#, origin: "https://h\(index).example:443", host: "h\(index).example", port: 443,
                route: .tcp, version: "2", now: start)
        }
        #expect(services.count <= 1_000)
    }
}

/// Alt-Svc discovery's state machine and parser against what a server, or many calls at once, can do to them (no
/// socket).
@Suite("Alternative services, hostile: lapsed and cleared advertisements, concurrent calls, odd fields")
struct AlternativeServicesHostileTests: AlternativeServicesFixture {

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
