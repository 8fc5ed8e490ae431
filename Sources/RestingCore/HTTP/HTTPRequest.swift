#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP request as a value: what the interceptor chain passes along and what a transport performs.
///
/// It holds no `URLRequest`, so a transport that does not use Foundation's networking never needs it.
/// Interceptors change requests by copying:
///
/// ```swift
/// var request = request
/// request.headers["X-Device-Id"] = deviceId
/// return try await execution(request)
/// ```
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// The request method.
    public var method: RequestMethod {
        get { box.fields.method }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.method }
    }
    /// The whole URL, query included.
    public var url: URL {
        get { box.fields.url }
        _modify {
            let unique = CopyOnWriteBox.unique(&box)
            // Deferred: an access that ends by throwing may still have changed the URL.
            defer { unique.fields.knownOriginKey = nil }
            yield &unique.fields.url
        }
    }
    /// Headers in the order they will be sent.
    public var headers: HTTPHeaderFields {
        get { box.fields.headers }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.headers }
    }
    /// The body; replayable, see ``RequestBody``.
    public var body: RequestBody {
        get { box.fields.body }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.body }
    }
    /// The longest the whole exchange may take; `nil` leaves it to the transport's configuration.
    public var timeout: Duration? {
        get { box.fields.timeout }
        // A setter, not a coroutine: a small value gains nothing from being changed in place, and a coroutine's frame
        // is a heap allocation where it does not fit its caller's.
        set { CopyOnWriteBox.unique(&box).fields.timeout = newValue }
    }
    /// Set for downloads: a 2xx body goes to this file instead of ``HTTPDataResponse/body``.
    public var downloadTarget: DownloadTarget? {
        get { box.fields.downloadTarget }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.downloadTarget }
    }
    /// Set for streamed responses: the transport answers with the head as soon as it arrives and the body as
    /// ``HTTPDataResponse/body`` as a stream. `timeout` then bounds the wait for the head only.
    public var responseStreaming: ResponseStreaming? {
        get { box.fields.responseStreaming }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.responseStreaming }
    }
    /// Set for a WebSocket handshake: on a `101 Switching Protocols` the transport hands the connection up as
    /// ``HTTPDataResponse/body``'s ``ResponseBody/upgradedConnection`` (see ``ConnectionUpgrade``).
    public var upgrade: ConnectionUpgrade? {
        get { box.fields.upgrade }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.upgrade }
    }
    /// Whether the response comes back as bytes in memory — not streamed, not written to a file, not an upgraded
    /// connection: what a link that shares or races one response among callers (de-duplication, hedging) needs.
    package var answersInMemory: Bool { responseStreaming == nil && downloadTarget == nil && upgrade == nil }
    /// Options for the interceptors (never sent): see ``RequestAttributes``.
    public var attributes: RequestAttributes {
        get { box.fields.attributes }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.attributes }
    }
    /// The origin this call's credentials were issued for: the origin of the URL the request was made with
    /// (by the converter, for a call), kept when ``url`` changes — by a redirect, a followed link, a
    /// reconnection, a replay or an interceptor. A credential field without an ``HTTPHeaderFields/Field/origin`` of
    /// its own belongs to it, and the credential boundary — the last link before the transport, after every
    /// interceptor — drops every credential field whose origin is not the request URL's, so a credential can
    /// never reach a site it was not issued for, whichever path took the request there.
    ///
    /// Set it only to move a whole call, credentials included, to another site on purpose (an app interceptor
    /// that sends every call to a staging host, a link to a host the app trusts):
    ///
    /// ```swift
    /// request.url = stagingURL
    /// request.credentialOrigin = Origin(stagingURL)
    /// ```
    public var credentialOrigin: Origin? {
        get {
            switch box.fields.credentialScope {
            case .addressed(let url): Origin(url)
            case .explicit(let origin): origin
            }
        }
        set { CopyOnWriteBox.unique(&box).fields.credentialScope = .explicit(newValue) }
    }

    /// Whether `RestingClient`'s chain follows redirects for this request (up to the client's
    /// `maximumRedirects`); clear it to receive 3xx responses as they are. Transports ignore it: each performs
    /// one exchange.
    public var followsRedirects: Bool {
        get { box.fields.followsRedirects }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.followsRedirects }
    }

    /// Where the stages of this request's call report their events: set by the client when it has a listener,
    /// kept by every copy an interceptor makes.
    package var events: (any CallEventSink)? {
        get { box.fields.events }
        set { CopyOnWriteBox.unique(&box).fields.events = newValue }
    }

    /// The limits `DeadlineInterceptor` set for this request's call, if it did; kept by every copy an interceptor
    /// makes. A field of its own rather than an attribute: every exchange of a call with a deadline reads it.
    package var exchangeDeadline: ExchangeDeadline? {
        get { box.fields.exchangeDeadline }
        set { CopyOnWriteBox.unique(&box).fields.exchangeDeadline = newValue }
    }

    /// ``url``'s origin as ``Origin/key(of:)`` spells it: what the resilience links key their state by. The converter
    /// sets it from the URL it keeps for an endpoint (no call reads its URL's text for it again); a request made or
    /// readdressed otherwise works it out when asked.
    package var originKey: String? {
        get { box.fields.knownOriginKey ?? Origin.key(of: url) }
        set { CopyOnWriteBox.unique(&box).fields.knownOriginKey = newValue }
    }

    // The fields live in one copy-on-write box, so that a request is one reference in every async frame that holds
    // it — every interceptor's (the Performance article, "What a waiting call holds").
    private var box: CopyOnWriteBox<Fields>

    /// A request as the converter, an interceptor or a test makes it; validate it with ``validate()``.
    public init(
        method: RequestMethod, url: URL, headers: HTTPHeaderFields = [:], body: RequestBody = .empty,
        timeout: Duration? = nil, downloadTarget: DownloadTarget? = nil, responseStreaming: ResponseStreaming? = nil,
        attributes: RequestAttributes = RequestAttributes(), followsRedirects: Bool = true
    ) {
        let fields = Fields(
            method: method, url: url, headers: headers, body: body, timeout: timeout, downloadTarget: downloadTarget,
            responseStreaming: responseStreaming, attributes: attributes, followsRedirects: followsRedirects,
            credentialScope: .addressed(url))
        box = CopyOnWriteBox(fields)
    }

    /// Checks what every transport relies on: an `http` or `https` URL (never `file:`, `gopher:` or any other
    /// scheme a transport might also speak), a token method, valid headers, no body on `GET`/`HEAD`.
    public func validate() throws(RestingError) {
        guard url.absoluteString.httpSchemeLength != nil else {
            throw .invalidURL(RedactionPolicy.default.url(url), reason: "only http and https URLs can be requested")
        }
        guard method.isValidToken else { throw .invalidMethod(method.rawValue) }
        try headers.validate()
        guard method.allowsRequestBody || body.isEmpty else { throw .bodyNotAllowed(method: method) }
    }

    /// `METHOD url`, then the headers with credentials redacted; the body is summarised, never printed.
    public var description: String {
        var lines = ["\(method) \(RedactionPolicy.default.url(url))"]
        if !headers.isEmpty { lines.append(headers.description) }
        if let length = body.contentLength, length > 0 { lines.append("<\(length)-byte body>") }
        return lines.joined(separator: "\n")
    }
}

extension HTTPRequest {
    /// The URL's path as it goes on the wire, percent-encoding kept: what stubs and mocks match routes against.
    package var encodedPath: String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }
}

extension HTTPRequest {
    /// What the `CopyOnWriteBox` holds.
    private struct Fields: Sendable {
        var method: RequestMethod
        var url: URL
        var headers: HTTPHeaderFields
        var body: RequestBody
        var timeout: Duration?
        var downloadTarget: DownloadTarget?
        var responseStreaming: ResponseStreaming?
        var upgrade: ConnectionUpgrade? = nil
        var attributes: RequestAttributes
        var followsRedirects: Bool
        var credentialScope: CredentialScope
        var events: (any CallEventSink)? = nil
        var exchangeDeadline: ExchangeDeadline? = nil
        /// `url`'s origin key, when the converter knew it; cleared whenever `url` changes.
        var knownOriginKey: String? = nil
    }

    /// Where ``credentialOrigin`` comes from: the URL the request was made with (its origin is worked out only
    /// when a credential is about to be checked, never for a call that carries none), or a value set.
    private enum CredentialScope: Sendable {
        case addressed(URL)
        case explicit(Origin?)
    }
}
