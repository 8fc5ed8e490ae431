import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2), as pure arithmetic on the
/// stored times and headers: tested without a clock or a socket.
struct CacheFreshness: Sendable {
    /// Seconds since the origin server generated the response (§4.2.3's `current_age`).
    let age: TimeInterval
    /// Seconds it is fresh for, from generation (§4.2.1).
    let lifetime: TimeInterval
    let directives: CacheControl

    /// The most a heuristic lifetime can be (10 % of the time since `Last-Modified`, §4.2.2).
    static let maximumHeuristicLifetime: TimeInterval = 24 * 3600
    /// Statuses cacheable by default, which may get a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    init(_ response: CachedResponse, now: Date) {
        let basis = response.freshnessBasis
        directives = basis.directives
        age = basis.initialAge + max(0, now.timeIntervalSince(response.responseTime))
        lifetime = basis.lifetime
    }

    /// What a stored response's headers and times say, whatever the time now: its directives, its age when received
    /// and its lifetime.
    struct Basis: Sendable, Equatable {
        let directives: CacheControl
        /// Seconds old it was when received (§4.2.3's `corrected_initial_age`).
        let initialAge: TimeInterval
        let lifetime: TimeInterval

        /// Before a response's fields are all set.
        static let unknown = Basis(directives: CacheControl(HTTPHeaderFields()), initialAge: 0, lifetime: 0)

        private init(directives: CacheControl, initialAge: TimeInterval, lifetime: TimeInterval) {
            self.directives = directives
            self.initialAge = initialAge
            self.lifetime = lifetime
        }

        init(_ response: CachedResponse) {
            directives = CacheControl(response.headers)
            let date = response.headers["Date"].flatMap { HTTPDate.parse($0) } ?? response.responseTime
            let ageValue =
                response.headers["Age"].flatMap { ServerDuration.parse($0, for: .cacheLifetime)?.seconds } ?? 0
            let apparentAge = max(0, response.responseTime.timeIntervalSince(date))
            let responseDelay = max(0, response.responseTime.timeIntervalSince(response.requestTime))
            initialAge = max(apparentAge, ageValue + responseDelay)

            if let maxAge = directives.maxAge {
                lifetime = ServerDuration.clamped(seconds: Double(maxAge), for: .cacheLifetime).seconds
            } else if let expires = response.headers["Expires"] {
                // An invalid Expires (`0`, `-1`) means already expired (§5.3).
                lifetime =
                    HTTPDate.parse(expires).map { ServerDuration.until($0, from: date, for: .cacheLifetime).seconds }
                    ?? 0
            } else if CacheFreshness.heuristicallyCacheable.contains(response.status),
                let lastModified = response.headers["Last-Modified"].flatMap({ HTTPDate.parse($0) })
            {
                lifetime = min(
                    max(0, date.timeIntervalSince(lastModified)) / 10, CacheFreshness.maximumHeuristicLifetime)
            } else {
                lifetime = 0
            }
        }
    }

    var isFresh: Bool { age < lifetime }
    /// Seconds past its lifetime (0 while fresh).
    var staleness: TimeInterval { max(0, age - lifetime) }

    /// Whether it may answer a request with `requestDirectives` without asking the server (§4.2, §5.2.1).
    func satisfies(_ requestDirectives: CacheControl) -> Bool {
        guard !directives.noCache, !requestDirectives.noCache else { return false }
        if let maxAge = requestDirectives.maxAge, age > TimeInterval(maxAge) { return false }
        let minFresh = TimeInterval(requestDirectives.minFresh ?? 0)
        if age + minFresh < lifetime { return true }
        // Stale: only when the request accepts it and the response allows serving it stale.
        guard let maxStale = requestDirectives.maxStale, !directives.mustRevalidate else { return false }
        return staleness <= TimeInterval(maxStale)
    }

    /// Whether it may be served stale because the server failed (RFC 5861 `stale-if-error`), within the
    /// response's or the request's allowance, or else `fallback`.
    func servableOnError(_ requestDirectives: CacheControl, fallback: Duration?) -> Bool {
        guard !directives.mustRevalidate, !directives.noCache else { return false }
        // The request's allowance is the app's; the response's is the server's, clamped like its lifetime.
        let allowance =
            requestDirectives.staleIfError.map(TimeInterval.init)
            ?? directives.staleIfError.map { ServerDuration.clamped(seconds: Double($0), for: .cacheLifetime).seconds }
        guard let seconds = allowance ?? fallback.map({ Double($0.components.seconds) }) else { return false }
        return staleness <= seconds
    }
}
