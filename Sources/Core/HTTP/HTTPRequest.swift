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
    public var method: HTTPMethod
    /// The whole URL, query included.
    public var url: URL
    /// Headers in the order they will be sent.
    public var headers: HTTPHeaders
    /// The body; replayable, see ``RequestBody``.
    public var body: RequestBody
    /// The longest the whole exchange may take; `nil` leaves it to the transport's configuration.
    public var timeout: Duration?
    /// Set for downloads: a 2xx body goes to this file instead of ``HTTPDataResponse/body``.
    public var downloadTarget: DownloadTarget?
    /// Set for streamed responses: the transport answers with the head as soon as it arrives and the body as
    /// ``HTTPDataResponse/bodyStream``. `timeout` then bounds the wait for the head only.
    public var responseStreaming: ResponseStreaming?
    /// Options for the interceptors (never sent): see ``RequestAttributes``.
    public var attributes: RequestAttributes
    /// Whether redirects are followed (up to the transport's ``HTTPClient/maximumRedirects``); clear it to
    /// receive 3xx responses as they are. `RestingClient` clears it on each hop it follows itself for its
    /// network interceptors, so that the transport performs one exchange per hop.
    public var followsRedirects: Bool

    /// A request as the converter, an interceptor or a test makes it; validate it with ``validate()``.
    public init(
        method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: RequestBody = .empty,
        timeout: Duration? = nil, downloadTarget: DownloadTarget? = nil, responseStreaming: ResponseStreaming? = nil,
        attributes: RequestAttributes = RequestAttributes(), followsRedirects: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.downloadTarget = downloadTarget
        self.responseStreaming = responseStreaming
        self.attributes = attributes
        self.followsRedirects = followsRedirects
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
