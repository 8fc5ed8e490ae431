#if OpenAPI
import HTTPTypes
import OpenAPIRuntime
import RestingCore
import RestingHTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A swift-openapi-runtime `ClientTransport` that sends each operation of a generated client through a
/// ``/RestingCore/RestingClient``: its interceptors (application and network), cache, cookies, retries,
/// authentication, logging, concurrency limit and `cancelAll`, on whichever transport it has.
///
/// ```swift
/// let resting = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: try CurlClient(),
///     interceptors: [AuthInterceptor(provider: tokens), RetryInterceptor()])
/// let api = Client(serverURL: try Servers.Server1.url(), transport: RestingClientTransport(client: resting))
/// ```
///
/// Each request carries its operation's `operationId` as ``/RestingCore/RequestAttributes/operationID``, so that
/// an interceptor can treat one operation differently. A response body is the transport's stream, with its
/// back-pressure: it is read as it arrives, never collected first, and can be read once. A request body is sent as it
/// is produced, with back-pressure (``/RestingCore/RequestBodySequence``): one whose `iterationBehavior` is
/// `.multiple` is sent again from its start by a retry, a refreshed credential or a 307/308 redirect; a `.single` one
/// is sent once, and what would send it again fails with ``/RestingCore/RestingError/requestBodyNotReplayable``.
///
/// The request goes where the generated client says: `serverURL` (here `baseURL`) and the operation's path; the
/// `RestingClient`'s own `baseUrl` is not used. Any status is a response, as the generated client expects.
///
/// **Response size.** Generated code reads a body whole (`upTo: .max`), and a streamed body is not held to the
/// transport's own limit; so a body handed to it is held to ``maximumResponseSize`` — by default the
/// 64 MiB both shipped transports keep to (``/RestingCore/TransportDefaults/maximumResponseSize``). Past it the call,
/// or the read that passes it, fails with ``/RestingCore/RestingError/responseTooLarge(limit:)``. Name the operations
/// whose bodies are meant to stream without end (event streams, large downloads) in ``streamingOperations``:
///
/// ```swift
/// let transport = RestingClientTransport(
///     client: resting, maximumResponseSize: 1 << 20, streamingOperations: ["subscribeToEvents"])
/// ```
public struct RestingClientTransport: ClientTransport {
    /// The client every operation is sent through.
    public let client: RestingClient
    /// The most bytes a response body handed to generated code may hold; `nil` for no limit.
    public var maximumResponseSize: Int64?
    /// The `operationId`s whose response bodies are not held to ``maximumResponseSize``.
    public var streamingOperations: Set<String>

    /// A transport sending through `client`, holding response bodies to `maximumResponseSize` bytes but those of
    /// `streamingOperations`.
    public init(
        client: RestingClient, maximumResponseSize: Int64? = TransportDefaults.maximumResponseSize,
        streamingOperations: Set<String> = []
    ) {
        self.client = client
        self.maximumResponseSize = maximumResponseSize
        self.streamingOperations = streamingOperations
    }

    /// Sends one operation's request through the client, and answers with its response head and streamed body.
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        guard let path = request.path else { throw RestingError.invalidURL("", reason: "the request has no path") }
        let url = try Self.url(baseURL, path)
        var sent = RestingCore.HTTPRequest(
            method: RequestMethod(rawValue: request.method.rawValue), url: url,
            headers: HTTPHeaderFields(request.headerFields), body: OpenAPIBodies.requestBody(body),
            responseStreaming: ResponseStreaming())
        sent.attributes.operationID = operationID
        let response = try await client.send(sent)
        let limit = streamingOperations.contains(operationID) ? nil : maximumResponseSize
        let head = try HTTPTypes.HTTPResponse(response)
        return (head, try OpenAPIBodies.httpBody(of: response, for: request.method, limit: limit))
    }

    /// `path` (with its query) under `baseURL`, whose own path is kept: `https://host/v1` and `/posts` make
    /// `https://host/v1/posts`.
    static func url(_ baseURL: URL, _ path: String) throws(RestingError) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + (path.hasPrefix("/") ? path : "/" + path)) else {
            throw .invalidURL(RedactionPolicy.default.url(baseURL), reason: "the operation's path makes no URL")
        }
        return url
    }
}
#endif
