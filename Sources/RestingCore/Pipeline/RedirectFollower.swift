#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The chain's redirect link: follows HTTP redirects in one place, between the application and the network
/// interceptors, so that methods, bodies and credentials are handled identically whatever transport carries the
/// bytes (a transport performs one exchange and never follows a redirect itself).
///
/// - 301, 302: a `POST` becomes a `GET` without body (what every browser and server expects); other methods
///   are kept, with their body.
/// - 303: becomes a `GET` (a `HEAD` stays `HEAD`) without body.
/// - 307, 308: the same method, and the body read again from the start.
/// - A hop to another origin (scheme, host or port — so also from HTTPS to HTTP) drops every header that
///   carries a credential: the names in ``SensitiveHeaders`` and every field marked sensitive.
/// - Past `maximumRedirects` hops the call fails with ``TransportError/Kind/tooManyRedirects``; a hop back to
///   a URL already requested with the same method fails with ``TransportError/Kind/redirectLoop``.
/// - A 3xx without a usable `Location`, or with `maximumRedirects` 0, is returned as it is.
///
/// `InterceptorChain` calls ``send(_:exchange:)`` with the network interceptors and the transport, so that each hop
/// passes them; ``RedirectingHTTPClient`` with a transport used on its own.
package struct RedirectFollower: Sendable {
    /// Redirects followed before ``TransportError/Kind/tooManyRedirects``; 0 returns the 3xx itself.
    package var maximumRedirects: Int

    /// A follower allowing `maximumRedirects` hops.
    package init(maximumRedirects: Int) { self.maximumRedirects = maximumRedirects }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Sends `request` through `exchange`, then each redirect it leads to, with the rules above; returns the final
    /// response.
    package func send(
        _ request: HTTPRequest, exchange: (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        var current = request
        var hops = Hops()
        while true {
            let response = try await exchange(current)
            guard let next = try follow(response, to: current, from: request, hops: &hops) else { return response }
            current = next
        }
    }

    /// The redirects followed so far: built at the first, as most requests are never redirected.
    package struct Hops {
        var visited: Set<String> = []
        var count = 0
    }

    /// The next hop after `response` to `current`, counted in `hops`; `nil` when `response` ends the call. Never
    /// inlined into ``send(_:exchange:)``, whose frame is held while each hop is awaited.
    @inline(never)
    private func follow(
        _ response: HTTPDataResponse, to current: HTTPRequest, from request: HTTPRequest, hops: inout Hops
    ) throws -> HTTPRequest? {
        if let cacheStatus = response.cacheStatus { current.events?.report(.cacheAnswered(cacheStatus)) }
        guard maximumRedirects > 0, let next = nextRequest(after: response, for: current) else { return nil }
        if hops.visited.isEmpty { hops.visited.insert("\(request.method) \(request.url.absoluteString)") }
        hops.count += 1
        guard hops.count <= maximumRedirects else {
            throw RestingError.transportFailed(
                TransportError(
                    kind: .tooManyRedirects, code: response.status, domain: "HTTP",
                    message: "more than \(maximumRedirects) redirects"))
        }
        guard hops.visited.insert("\(next.method) \(next.url.absoluteString)").inserted else {
            throw RestingError.transportFailed(
                TransportError(
                    kind: .redirectLoop, code: response.status, domain: "HTTP",
                    message: "redirect loop back to \(RedactionPolicy.default.url(next.url))"))
        }
        current.events?.report(
            .redirectFollowed(status: response.status, url: RedactionPolicy.default.url(next.url), hop: hops.count))
        return next
    }

    /// The request a redirect response asks for, or `nil` when `response` is not one to follow.
    package func nextRequest(after response: HTTPDataResponse, for request: HTTPRequest) -> HTTPRequest? {
        guard Self.redirectStatuses.contains(response.status), let location = response.headers["Location"],
            let url = URL(string: location, relativeTo: request.url)?.absoluteURL,
            Origin(url) != nil  // HTTP(S) with a host: `http:https://h//` has the scheme and no host
        else { return nil }

        var next = request
        next.url = url
        let becomesGet =
            (response.status == 303 && request.method != .head)
            || ((response.status == 301 || response.status == 302) && request.method == .post)
        if becomesGet {
            next.method = .get
            next.body = .empty
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] { next.headers.remove(name: name) }
        }
        if !Origin.same(request.url, url) { next.headers.removeCredentials() }
        return next
    }
}
