import Foundation
import Testing

@testable import RestingCurl

/// What a client makes of servers' `Alt-Svc` fields (RFC 7838) when it discovers HTTP/3: which advertisements count,
/// for how long, and how each origin's calls go from there — a state machine, tested without a socket.
@Suite("Alternative services: Alt-Svc advertisements and the route of each origin's calls")
struct AlternativeServicesTests {
    let origin = "https://api.example.com:443"
    let start = Date(timeIntervalSince1970: 1_000_000)

    func learn(
        _ services: AlternativeServices, _ field: String?, route: AlternativeServices.Route = .tcp,
        version: String? = "2", at offset: Double = 0
    ) {
        services.learn(
            field, origin: origin, host: "api.example.com", port: 443, route: route, version: version,
            now: start + offset)
    }

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
