import Foundation
// The one import most apps write: the core, every capability and the default transport.
@_exported import RestingAuthentication
@_exported import RestingCache
@_exported import RestingConnections
@_exported import RestingCookies
@_exported import RestingCore
@_exported import RestingJSONRPC
@_exported import RestingLogging
@_exported import RestingOffline
@_exported import RestingPagination
@_exported import RestingResilience
@_exported import RestingStreaming
@_exported import RestingURLSession
@_exported import RestingWebSocket
@_exported import RestingWebSocketCore

#if os(Linux)
import RestingCurl
#endif

extension RestingClient {
    /// A client on the default transport, ``defaultTransport``: every parameter of RestingCore's initialiser but
    /// `httpClient`, with the same defaults (`RestingKitTests` fail when the two drift apart).
    ///
    /// ```swift
    /// import RestingKit
    ///
    /// let restingClient = RestingClient(baseUrl: "https://jsonplaceholder.typicode.com")
    /// ```
    public convenience init(
        baseUrl: String, decoder: JSONDecoder = JSONDecoder(),
        requestConverter: any RequestConverter = RestingRequestConverter(),
        interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor] = [],
        acceptedStatusCodes: Range<Int> = 200..<300, errorBody: (any (Error & Decodable & Sendable).Type)? = nil,
        concurrency: ConcurrencyMode = .unlimited, maximumRedirects: Int = TransportDefaults.maximumRedirects,
        eventListener: EventListenerFactory? = nil
    ) {
        self.init(
            baseUrl: baseUrl, decoder: decoder, httpClient: Self.defaultTransport,
            requestConverter: requestConverter, interceptors: interceptors, networkInterceptors: networkInterceptors,
            acceptedStatusCodes: acceptedStatusCodes, errorBody: errorBody, concurrency: concurrency,
            maximumRedirects: maximumRedirects, eventListener: eventListener)
    }

    /// The transport of a client made without one: ``/RestingURLSession/URLSessionClient/shared`` on Apple platforms, and on Linux one
    /// `CurlClient` (module `RestingCurl`) for the whole process, made on first use.
    ///
    /// Why not URLSession on Linux: FoundationNetworking up to Swift 6.3 terminates the process when a chunked response
    /// carries trailer fields (`NativeProtocol.swift`: "Transfer completed, but there's no response") — libcurl hands
    /// it each trailer line as a header line, it starts a new response head with them, and the transfer ends with no
    /// head complete. Any server, or anyone on the path, could end the app with one field; nothing a transport on
    /// top of it can do prevents it (the PlatformNotes article has the details). Pass `URLSessionClient.shared` as
    /// `httpClient:` to choose it anyway. Should libcurl fail to start a `CurlClient` (it cannot make a multi handle
    /// or a thread), every call of such a client fails with that error.
    public static var defaultTransport: any HTTPClient { DefaultTransport.shared }
}

/// The one default transport of the process.
private enum DefaultTransport {
    #if os(Linux)
    static let shared: any HTTPClient = {
        do {
            return try CurlClient()
        } catch {
            return UnavailableTransport(
                error: error as? RestingError
                    ?? .transportFailed(
                        TransportError(kind: .other, code: 0, domain: "RestingCurl", message: "\(error)")))
        }
    }()
    #else
    static let shared: any HTTPClient = URLSessionClient.shared
    #endif
}

#if os(Linux)
/// A transport that could not be made: every call fails with why.
private struct UnavailableTransport: HTTPClient {
    let error: RestingError

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        throw error
    }
}
#endif
