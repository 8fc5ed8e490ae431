/// The one place that decides whether a credential may leave for an origin: the last link of every call's
/// chain, after every application and network interceptor, right before the transport.
///
/// A header field carries a credential when its name says so (``SensitiveHeaders``) or it was marked sensitive
/// (``HTTPHeaderFields/Field/isSensitive``). Each is bound to an origin — its own ``HTTPHeaderFields/Field/origin``
/// (a cookie's site), or else the call's ``HTTPRequest/credentialOrigin`` (where the call was addressed) — and
/// leaves only for that origin: a request to any other has it removed here, whoever added it and however the
/// request got there (a redirect, a followed link, a reconnection, a replay, an interceptor that copies headers
/// or re-adds a token on another hop).
///
/// Features keep their own checks where they give a clearer error (pagination refuses a link to another
/// origin), but none is needed for safety: a feature that forgets one still cannot leak.
enum CredentialBoundary {
    /// `request` without the credential fields its URL's origin may not receive — in its header section, and in
    /// its body's trailer section (made once the body has gone, so filtered then).
    static func enforce(on request: inout HTTPRequest) {
        let destination = Origin(request.url)
        let callOrigin = request.credentialOrigin
        if request.body.trailers != nil {
            request.body = request.body.mappingTrailers { trailers in
                var trailers = trailers
                trailers.removeAll { mayNotLeave($0, for: destination, callOrigin: callOrigin) }
                return trailers
            }
        }
        // Most calls carry no credential: nothing to work out.
        guard request.headers.contains(where: \.carriesCredential) else { return }
        request.headers.removeAll { mayNotLeave($0, for: destination, callOrigin: callOrigin) }
    }

    /// Whether `field` carries a credential that `destination` may not receive.
    private static func mayNotLeave(_ field: HTTPHeaderFields.Field, for destination: Origin?, callOrigin: Origin?)
        -> Bool
    {
        field.carriesCredential && (destination == nil || (field.origin ?? callOrigin) != destination)
    }
}
