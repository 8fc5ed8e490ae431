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
/// An alternative on another host or port is not taken: reaching it would move the TCP fallback there too. With a
/// file (``CurlConfiguration/alternativeServicesFile``), the advertisements outlive the client: read when it is made,
/// written when it shuts down; their calls probe again first.
package final class AlternativeServices: Sendable {
    struct Alternative {
        var http3Until: Date
        var brokenUntil: Date
        /// Whether a call has reached it over HTTP/3 since it was advertised.
        var confirmed = false
        /// When the call probing it began, while it is out: the other calls go over TCP meanwhile.
        var probingSince: Date?

        /// How a call goes at `now`: over TCP while nothing live is advertised, the alternative is broken or a probe
        /// is out; HTTP/3 only once confirmed; else it probes.
        func route(at now: Date) -> Route {
            guard http3Until > now, brokenUntil <= now else { return .tcp }
            if confirmed { return .http3 }
            if let since = probingSince, now < since + AlternativeServices.probeLifetime.seconds { return .tcp }
            return .probe
        }
    }

    /// How long a probe may be out before another call probes in its place (its answer lost, say).
    static let probeLifetime: Duration = .seconds(30)

    /// How the next call to an origin goes.
    package enum Route: Equatable {
        /// Over TCP, as the client's setting says: nothing advertised, or the alternative is broken.
        case tcp
        /// Racing QUIC against TCP on a connection of its own: the first call since the advertisement (one at a time),
        /// which an open HTTP/2 connection would otherwise carry.
        case probe
        /// Over HTTP/3 only, on the QUIC connection the probe opened if it is still open: libcurl would let a race
        /// ride on the origin's HTTP/2 connection. A call that cannot connect is sent again over TCP
        /// (``CurlClient``), and the alternative is marked broken.
        case http3
    }

    /// The longest a confirmed alternative's QUIC handshake may take before the call goes over TCP: one that has
    /// answered before answers within a round trip or two, and a black hole must not cost the client's whole connect
    /// timeout (30 s by default) per call.
    static let http3ConnectTimeout: Duration = .seconds(3)

    /// How long an alternative that lost its race is not raced again.
    static let brokenFor: Duration = .seconds(300)

    private let origins = Locked(
        BoundedMap<String, Alternative>(capacity: 1_000) { alternative, now in
            alternative.http3Until > now || alternative.brokenUntil > now
        })

    /// Where the advertisements are kept between runs, if anywhere.
    let file: String?

    /// What `file` holds at `now`, or nothing heard yet.
    package init(file: String? = nil, now: Date = Date()) {
        self.file = file
        guard let file else { return }
        origins.withLock { map in
            for entry in AlternativeServicesFile.entries(inFile: file, now: now) {
                map.withValue(
                    for: "https://\(entry.host):\(entry.port)", now: now,
                    default: Alternative(http3Until: entry.expiry, brokenUntil: now)
                ) { $0.http3Until = max($0.http3Until, entry.expiry) }
            }
        }
    }

    /// Writes the advertisements live at `now` to ``file``, if there is one.
    package func save(now: Date = Date()) throws {
        guard let file else { return }
        let entries = origins.withLock { $0.elements }.compactMap { origin, alternative in
            // The key is `Origin`'s description, `https://host:port`: the port after the last colon (IPv6 hosts
            // have colons of their own).
            guard alternative.http3Until > now, origin.hasPrefix("https://"), let colon = origin.lastIndex(of: ":"),
                let port = Int(origin[origin.index(after: colon)...])
            else { return nil as AlternativeServicesFile.Entry? }
            let host = String(origin[origin.index(origin.startIndex, offsetBy: 8)..<colon])
            return AlternativeServicesFile.Entry(host: host, port: port, expiry: alternative.http3Until)
        }
        try AlternativeServicesFile.save(entries, to: file)
    }

    /// How many origins it keeps state for (bounded).
    package var count: Int { origins.withLock { $0.count } }

    /// How `origin`'s next call goes at `now`; a `.probe` is this call's to make, and ends with ``learn`` or
    /// ``settleProbe(_:now:)``.
    package func route(to origin: String, now: Date = Date()) -> Route {
        origins.withLock { map in
            map.update(origin, now: now) { alternative -> Route in
                let route = alternative.route(at: now)
                if route == .probe { alternative.probingSince = now }
                return route
            } ?? .tcp
        }
    }

    /// The route `origin`'s next call would take at `now`, without taking it (a probe stays for that call to claim).
    package func peek(_ origin: String, now: Date = Date()) -> Route {
        origins.withLock { $0[origin] }?.route(at: now) ?? .tcp
    }

    /// Ends the probe out for `origin` without an answer to learn from (the call failed).
    package func settleProbe(_ origin: String, now: Date = Date()) {
        origins.withLock { _ = $0.update(origin, now: now) { $0.probingSince = nil } }
    }

    /// Takes in what an answer from `origin` (`host`, `port`) says: its `Alt-Svc` field, and, for a call that went
    /// by `route`, the HTTP version that carried it.
    package func learn(
        _ field: String?, origin: String, host: String, port: Int, route: Route, version: String?, now: Date = Date()
    ) {
        let fresh = Alternative(http3Until: now, brokenUntil: now)
        // The probe's race lost: QUIC did not answer.
        if route == .probe, version != "3" {
            markBroken(origin, now: now)
            return
        }
        let lifetime = field.flatMap { Self.http3Lifetime(in: $0, host: host, port: port) }
        guard route == .probe || lifetime != nil else { return }
        origins.withLock { map in
            map.withValue(for: origin, now: now, default: fresh) { alternative in
                if route == .probe {
                    alternative.confirmed = true
                    alternative.probingSince = nil
                }
                guard let lifetime else { return }
                // An advertisement after the last one lapsed, or `clear`, starts over: confirmed by a probe again.
                if alternative.http3Until <= now || lifetime == .zero { alternative.confirmed = route == .probe }
                alternative.http3Until = now + lifetime.seconds
            }
        }
    }

    /// Races no more for `origin` for ``brokenFor``: its QUIC did not answer.
    package func markBroken(_ origin: String, now: Date = Date()) {
        origins.withLock { map in
            map.withValue(for: origin, now: now, default: Alternative(http3Until: now, brokenUntil: now)) {
                $0.brokenUntil = now + Self.brokenFor.seconds
                $0.confirmed = false
                $0.probingSince = nil
            }
        }
    }

    /// The lifetime an `Alt-Svc` field gives HTTP/3 on `host`:`port` (`ma`, 24 hours by default, at most a day);
    /// zero for `clear`; `nil` when it names no such alternative.
    package static func http3Lifetime(in field: String, host: String, port: Int) -> Duration? {
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
            // A parameter may be a quoted string (RFC 7838 §3).
            let seconds = maximumAge.map { String($0.dropFirst(3)).filter { $0 != "\"" } } ?? "86400"
            return ServerDuration.parse(seconds, for: .alternativeService) ?? .zero
        }
        return nil
    }
}

extension TransportError {
    /// Whether libcurl gave up connecting within its connect timeout: nothing of the request was sent.
    var isConnectTimeout: Bool {
        kind == .timedOut && domain == CurlError.domain && message.contains("Connection timed out after")
    }
}

extension AlternativeServices.Route {
    /// The connection a call on this route rides on, for a call whose timeout is `timeout`: a probe's of its own; an
    /// HTTP/3 one's connected within ``AlternativeServices/http3ConnectTimeout``, and half the timeout at most, so
    /// that a black hole leaves the other half for TCP.
    func connection(within timeout: Duration?) -> TransferConnection {
        switch self {
        case .tcp: .any
        case .probe: .fresh
        case .http3: .connectingWithin(min(AlternativeServices.http3ConnectTimeout, (timeout ?? .seconds(3600)) / 2))
        }
    }
}

extension HTTPRequest {
    /// This request sent again after a first exchange that took `spent`: with what is left of its timeout (or the
    /// client's `totalTimeout`), so that the call's timeout is not spent twice; `nil` when nothing is left.
    func resent(after spent: Duration, within totalTimeout: Duration?) -> HTTPRequest? {
        guard let timeout = timeout ?? totalTimeout else { return self }
        guard timeout > spent else { return nil }
        var resent = self
        resent.timeout = timeout - spent
        return resent
    }
}
