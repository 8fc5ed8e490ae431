#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place that decides whether a credential may leave for an origin: the last link of every call's
/// chain, after every application and network interceptor, right before the transport.
///
/// A header field carries a credential when its name says so (``SensitiveHeaders``) or it was marked sensitive
/// (``HTTPHeaderFields/Field/isSensitive``). Each is bound to an origin — its own ``HTTPHeaderFields/Field/origin``
/// (a cookie's site), or else the call's ``HTTPRequest/credentialOrigin`` (where the call was addressed) — and
/// leaves only for that origin: a request to any other has it removed here, whoever added it and however the
/// request got there (a redirect, a followed link, a reconnection, a replay, an interceptor that copies headers
/// or re-adds a token on another hop). The URL's user-info (`https://user:password@host`, which transports send as
/// `Authorization: Basic`) is the call's credential too, and is removed from a URL of another origin.
///
/// A request made anew (``HTTPRequest/init(method:url:headers:body:timeout:attributes:)``) is a new call addressed to
/// its own URL, whatever fields it was given: to send a call elsewhere, change the request the chain hands over
/// (its ``HTTPRequest/url``), which keeps the call's credential origin.
///
/// Features keep their own checks where they give a clearer error (pagination refuses a link to another
/// origin), but none is needed for safety: a feature that forgets one still cannot leak.
enum CredentialBoundary {
    /// `request` without the credentials its URL's origin may not receive — in its header section, its body's
    /// trailer section (made once the body has gone, so filtered then) and its URL's user-info.
    static func enforce(on request: inout HTTPRequest) throws(RestingError) {
        let hasTrailers = request.body.trailers != nil
        let hasCredential = request.headers.contains(where: \.carriesCredential)
        let hasUserInfo = mayHaveUserInfo(request.url) && (request.url.user != nil || request.url.password != nil)
        // Most calls carry no credential, no trailers and no user-info: no origin to work out (each is a URL read
        // again, a microsecond apiece on every call).
        guard hasTrailers || hasCredential || hasUserInfo else { return }
        let destination = Origin(request.url)
        let callOrigin = request.credentialOrigin
        if hasUserInfo, destination == nil || destination != callOrigin {
            request.url = try withoutUserInfo(request.url)
        }
        if hasTrailers {
            request.body = request.body.mappingTrailers { trailers in
                var trailers = trailers
                trailers.removeAll { mayNotLeave($0, for: destination, callOrigin: callOrigin) }
                return trailers
            }
        }
        if hasCredential { request.headers.removeAll { mayNotLeave($0, for: destination, callOrigin: callOrigin) } }
    }

    /// The fields of `headers` that may go to `url`'s origin, for what a transport sends outside any call (a
    /// connection's warm-up): unbound ones belong to `url` itself.
    static func headers(_ headers: HTTPHeaderFields, for url: URL) -> HTTPHeaderFields {
        let destination = Origin(url)
        var kept = headers
        kept.removeAll { mayNotLeave($0, for: destination, callOrigin: destination) }
        return kept
    }

    /// Whether `url` may have user-info, which always ends with an `@`: most URLs hold none, and a scan of their text
    /// costs less than parsing out their user.
    private static func mayHaveUserInfo(_ url: URL) -> Bool {
        var text = url.absoluteString
        return text.withUTF8 { $0.contains(UInt8(ascii: "@")) }
    }

    /// `url` without its user and password; where they cannot be taken out, no URL at all.
    private static func withoutUserInfo(_ url: URL) throws(RestingError) -> URL {
        // Resolved: the user-info of a relative URL is its base's, and the URL without it is the whole address.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.user = nil
        components?.password = nil
        guard let stripped = components?.url else {
            throw .invalidURL(
                RedactionPolicy.default.address(url.absoluteString), reason: "its user-info cannot be removed")
        }
        return stripped
    }

    /// Whether `field` carries a credential that `destination` may not receive.
    private static func mayNotLeave(_ field: HTTPHeaderFields.Field, for destination: Origin?, callOrigin: Origin?)
        -> Bool
    {
        field.carriesCredential && (destination == nil || (field.origin ?? callOrigin) != destination)
    }
}
