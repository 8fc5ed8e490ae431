import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which driver takes an origin's transfers, so that the requests of an HTTP/2 origin share one connection whatever
/// the driver count — as browsers and OkHttp keep one per origin. Each driver has a connection cache of its own: a
/// burst spread over the drivers opened a connection on each.
///
/// An origin that may speak HTTP/2 (`https` under ``CurlConfiguration/HTTPVersion/http2OverTLS``, any under
/// ``CurlConfiguration/HTTPVersion/http2PriorKnowledge``) is placed on a driver at its first transfer — the caller's
/// own, or the least loaded — and keeps it while its answers come over HTTP/2 or 3. One that answers over HTTP/1.x
/// is spread again: its requests need connections of their own anyway, and spread they use every core. Past
/// ``capacity`` origins the table starts again, so that no number of hosts grows it without bound.
final class OriginAffinity<Driver: AnyObject & Sendable>: Sendable {
    /// Where an origin's transfers go.
    enum Placement {
        /// To this driver, until a response says which protocol the origin speaks.
        case pending(Driver)
        /// To this driver, which holds the origin's multiplexed connection.
        case multiplexed(Driver)
        /// Wherever the caller runs, or the least loaded driver: the origin speaks HTTP/1.x.
        case spread
    }

    /// The most origins remembered.
    let capacity: Int
    private let httpVersion: CurlConfiguration.HTTPVersion
    private let placements = Locked<[String: Placement]>([:])

    init(httpVersion: CurlConfiguration.HTTPVersion, capacity: Int = 1024) {
        self.httpVersion = httpVersion
        self.capacity = capacity
    }

    /// The key of `url`'s origin when it may be multiplexed, else `nil` (its transfers are spread).
    func key(for url: URL) -> String? {
        // On every transfer: a plain-HTTP URL under HTTP/2-over-TLS leaves before anything is allocated.
        guard httpVersion != .http1_1, let scheme = url.scheme else { return nil }
        let isHTTPS = scheme.utf8.count == 5 && scheme.lowercased() == "https"
        guard isHTTPS || httpVersion == .http2PriorKnowledge, let host = url.host?.lowercased() else { return nil }
        return "\(isHTTPS ? "https" : scheme.lowercased())://\(host):\(url.port ?? (isHTTPS ? 443 : 80))"
    }

    /// The driver for a transfer to the origin `key`, placing a new origin on `choose()`; `nil` when the origin is
    /// spread. `learns` is true while the origin's protocol is not known: the transfer then reports it
    /// (``learn(_:multiplexed:)``).
    func driver(for key: String, choose: () -> Driver) -> (driver: Driver?, learns: Bool) {
        placements.withLock { placements in
            switch placements[key] {
            case .pending(let driver): return (driver, true)
            case .multiplexed(let driver): return (driver, false)
            case .spread: return (nil, false)
            case nil:
                if placements.count >= capacity { placements.removeAll(keepingCapacity: true) }
                let driver = choose()
                placements[key] = .pending(driver)
                return (driver, true)
            }
        }
    }

    /// What a response from the origin `key` said: whether it came over a multiplexed protocol (HTTP/2 or 3).
    func learn(_ key: String, multiplexed: Bool) {
        placements.withLock { placements in
            guard case .pending(let driver) = placements[key] else { return }
            placements[key] = multiplexed ? .multiplexed(driver) : .spread
        }
    }
}
