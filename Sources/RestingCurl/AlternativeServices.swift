import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The origins a client has heard advertise HTTP/3 on their own host and port (`Alt-Svc: h3=":443"; ma=86400`, RFC
/// 7838), each until its advertised lifetime ends (1 day at most): their next calls race QUIC against TCP. Kept in
/// bounded memory per client (``BoundedMap``), forgotten when the server clears them (`Alt-Svc: clear`). A call that
/// raced for one and ended up on TCP marks it broken for ``brokenFor``, advertised or not, as browsers do: a network
/// that drops UDP then costs one race every few minutes, not one per call.
///
/// An alternative on another host or port is not taken: reaching it would move the TCP fallback there too.
final class AlternativeServices: Sendable {
    struct Alternative {
        var http3Until: Date
        var brokenUntil: Date
        /// Whether a call has reached it over HTTP/3 since it was advertised.
        var confirmed = false
    }

    /// How the next call to an origin goes.
    enum Route: Equatable {
        /// Over TCP, as the client's setting says: nothing advertised, or the alternative is broken.
        case tcp
        /// Racing QUIC against TCP on a connection of its own: the first call since the advertisement, which an open
        /// HTTP/2 connection would otherwise carry.
        case probe
        /// Over HTTP/3 only, on the QUIC connection the probe opened if it is still open: libcurl would let a race
        /// ride on the origin's HTTP/2 connection. A call that cannot connect is sent again over TCP
        /// (``CurlClient``), and the alternative is marked broken.
        case http3
    }

    /// How long an alternative that lost its race is not raced again.
    static let brokenFor: Duration = .seconds(300)

    private let origins = Locked(
        BoundedMap<String, Alternative>(capacity: 1_000) { alternative, now in
            alternative.http3Until > now || alternative.brokenUntil > now
        })

    /// How many origins it keeps state for (bounded).
    var count: Int { origins.withLock { $0.count } }

    /// How `origin`'s next call goes at `now`.
    func route(to origin: String, now: Date = Date()) -> Route {
        guard let alternative = origins.withLock({ $0[origin] }), alternative.http3Until > now,
            alternative.brokenUntil <= now
        else { return .tcp }
        return alternative.confirmed ? .http3 : .probe
    }

    /// Takes in what an answer from `origin` (`host`, `port`) says: its `Alt-Svc` field, and, for a call that went
    /// by `route`, the HTTP version that carried it.
    func learn(
        _ field: String?, origin: String, host: String, port: Int, route: Route, version: String?, now: Date = Date()
    ) {
        let fresh = Alternative(http3Until: now, brokenUntil: now)
        // The probe's race lost: QUIC did not answer.
        if route == .probe, version != "3" {
            markBroken(origin, now: now)
            return
        }
        if route == .probe {
            origins.withLock { map in map.withValue(for: origin, now: now, default: fresh) { $0.confirmed = true } }
        }
        guard let field, let lifetime = Self.http3Lifetime(in: field, host: host, port: port) else { return }
        origins.withLock { map in
            map.withValue(for: origin, now: now, default: fresh) { $0.http3Until = now + lifetime.seconds }
        }
    }

    /// Races no more for `origin` for ``brokenFor``: its QUIC did not answer.
    func markBroken(_ origin: String, now: Date = Date()) {
        origins.withLock { map in
            map.withValue(for: origin, now: now, default: Alternative(http3Until: now, brokenUntil: now)) {
                $0.brokenUntil = now + Self.brokenFor.seconds
                $0.confirmed = false
            }
        }
    }

    /// The lifetime an `Alt-Svc` field gives HTTP/3 on `host`:`port` (`ma`, 24 hours by default, at most a day);
    /// zero for `clear`; `nil` when it names no such alternative.
    static func http3Lifetime(in field: String, host: String, port: Int) -> Duration? {
        if field.trimmingWhitespace.lowercased() == "clear" { return .zero }
        for alternative in field.split(separator: ",") {
            let parameters = alternative.split(separator: ";").map { String($0).trimmingWhitespace }
            guard let service = parameters.first, let equals = service.firstIndex(of: "="),
                service[..<equals] == "h3"
            else { continue }
            let authority = service[service.index(after: equals)...].filter { $0 != "\"" }
            guard let colon = authority.lastIndex(of: ":"), Int(authority[authority.index(after: colon)...]) == port,
                authority[..<colon].isEmpty || authority[..<colon].lowercased() == host.lowercased()
            else { continue }
            let maximumAge = parameters.dropFirst().first { $0.lowercased().hasPrefix("ma=") }
            let seconds = maximumAge.map { String($0.dropFirst(3)) } ?? "86400"
            return ServerDuration.parse(seconds, for: .alternativeService) ?? .zero
        }
        return nil
    }
}
