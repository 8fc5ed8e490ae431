import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

/// The conformance suite every ``/RestingCore/HTTPClient`` passes, against the conformance server on 127.0.0.1 — the
/// product `RestingTransportConformance`, for your own transport's tests as for ours.
///
/// ```swift
/// @Test func myTransportConforms() async throws {
///     let suite = try await TransportConformance(name: "MyTransport", capabilities: .init()) { settings in
///         try MyTransport(idleTimeout: settings.idleTimeout)
///     }
///     try await suite.runAll()          // or one check at a time: suite.methods(), suite.timeouts(), …
/// }
/// ```
///
/// Each check is one behaviour of the `HTTPClient` contract and records its failures with `#expect`. Requests go
/// through a `RestingClient`'s chain, as in an app, so a transport that performs one exchange — and leaves
/// validation and redirects to the chain — passes the redirect checks too. The conformance server (Python 3's standard library only) ships with the kit as a resource and is started once per
/// test process.
public struct TransportConformance: Sendable, CustomStringConvertible {
    /// What a transport can and cannot do; anything it cannot do must fail as `.unsupported`, never silently.
    public struct Capabilities: Sendable {
        /// Header names are sent in the case given and repeats are sent as separate fields.
        public var preservesRequestHeaderCase = true
        /// Repeated response headers arrive as separate fields, in order.
        public var preservesRepeatedResponseHeaders = true
        /// gzip and deflate response bodies are decoded; without it they must fail as `.unsupported`.
        public var decodesContentCodings = true
        /// The transport opens connections, so a connect timeout applies; without it, making a transport with
        /// one must fail as `.unsupported`.
        public var opensConnections = true
        /// A response with trailers after its chunked body can be received at all. FoundationNetworking on
        /// Linux traps on one ("Transfer completed, but there's no response", NativeProtocol.swift:240): no
        /// delegate answer avoids it, so the check cannot run there without killing the test process.
        public var survivesTrailers = true
        /// The transport sees the status line itself, so it can refuse a protocol name not in capitals
        /// (`Http/1.1`) and take a line with nothing after the code (`HTTP/1.1 200`). FoundationNetworking on Linux
        /// accepts any protocol name libcurl does (libcurl compares `HTTP/` without case), refuses a line without a
        /// reason phrase, and `HTTPURLResponse` carries no version, so a transport on URLSession can do neither.
        public var readsStatusLines = true
        /// The transport reads HTTP/1.1's framing itself — status line, `Content-Length`, chunks — so a server's
        /// faults in it (a short body, bad chunks, a garbage status line, conflicting lengths, a head too large) reach
        /// it as such and fail as `.malformedResponse`. Over HTTP/2 and HTTP/3 the framing is binary, and a server (or
        /// a front relaying HTTP/1.1) that cannot answer properly resets the stream: those faults fail as
        /// `.connectionReset`.
        public var readsHTTP1Framing = true
        /// A streamed body's reader that stops stops the socket (the server's send buffer fills). Without it the
        /// transport must still bound its memory, and say how in its documentation.
        public var pausesReading = true
        /// A response can be read while the request body is still being produced, and ends when the server ends
        /// it, the body open or not. Without it, a body produced from an async sequence is sent once it has ended
        /// (which the transport documents).
        public var fullDuplex = true
        /// Trailer fields are read after a response body and sent after a request body; without it, a request
        /// body with trailers must fail as `.unsupported` (and ``survivesTrailers`` says whether a response with
        /// them can be received at all).
        public var handlesTrailers = true
        /// A `101 Switching Protocols` hands the connection over (``/RestingCore/HTTPRequest/upgrade``), so WebSockets
        /// work; without it, opening one must fail as `.unsupported`, or the transport speaks WebSocket itself
        /// (``/RestingWebSocketCore/TransportWebSocket``) and a message echoes.
        public var upgradesConnections = true
        /// Everything on: what a full HTTP/1.1 transport over sockets can do.
        public init() {}
    }

    /// Settings a check needs from the transport it makes.
    public struct Settings: Sendable {
        /// Fail a transfer that receives nothing for this long.
        public var idleTimeout: Duration?
        /// Fail a connection that does not complete within this long.
        public var connectTimeout: Duration?
        /// Fail a response whose body, kept in memory, would be larger than this.
        public var maximumResponseSize: Int64?
        /// Fail a buffered response that arrives slower than this (never a streamed one).
        public var minimumTransferRate: MinimumTransferRate?
        /// Settings with these limits; `nil` leaves the transport's default.
        public init(
            idleTimeout: Duration? = nil, connectTimeout: Duration? = nil, maximumResponseSize: Int64? = nil,
            minimumTransferRate: MinimumTransferRate? = nil
        ) {
            self.idleTimeout = idleTimeout
            self.connectTimeout = connectTimeout
            self.maximumResponseSize = maximumResponseSize
            self.minimumTransferRate = minimumTransferRate
        }
    }

    /// The transport's name, in failure messages.
    public let name: String
    /// What the transport can do; checks of what it cannot expect it to fail as unsupported instead.
    public let capabilities: Capabilities
    /// The conformance server, or its model for a transport without a wire.
    public let server: any ConformanceBackend
    let makeTransport: @Sendable (Settings) throws -> any HTTPClient
    let transport: any HTTPClient

    /// The conformance server the kit ships, started on first use and stopped with the process.
    public static let sharedServer = Task<LocalServer, any Error> {
        guard let script = Bundle.module.url(forResource: "conformance_server", withExtension: "py") else {
            throw LocalServer.StartError.scriptNotFound("conformance_server.py in the kit's resources")
        }
        return try await LocalServer.start(script: script)
    }

    /// A suite for the transports `makeTransport` makes.
    ///
    /// - Parameters:
    ///   - name: The transport's name, in failure messages.
    ///   - capabilities: What the transport can do.
    ///   - server: What answers the checks; `nil` starts (once per process) the conformance server.
    ///   - makeTransport: A transport with the settings a check needs.
    public init(
        name: String, capabilities: Capabilities, server: (any ConformanceBackend)? = nil,
        makeTransport: @escaping @Sendable (Settings) throws -> any HTTPClient
    ) async throws {
        self.name = name
        self.capabilities = capabilities
        self.makeTransport = makeTransport
        if let server {
            self.server = server
        } else {
            self.server = try await Self.sharedServer.value
        }
        transport = try makeTransport(Settings())
    }

    public var description: String { name }

    // MARK: Helpers

    func url(_ path: String, host: String = "127.0.0.1") throws -> URL {
        try #require(URL(string: "\(server.scheme)://\(host):\(server.port)\(path)"))
    }

    /// Sends `request` as an app would: through a ``/RestingCore/RestingClient``'s chain (validation, the credential
    /// boundary, redirects followed hop by hop) to the transport, which performs each exchange.
    func send(
        _ request: HTTPRequest, on transport: (any HTTPClient)? = nil, progress: @escaping ProgressHandler = { _ in }
    ) async throws -> HTTPDataResponse {
        let client = RestingClient(baseUrl: "", httpClient: transport ?? self.transport)
        return try await client.exchange(request, progress: progress)
    }

    func echo(_ request: HTTPRequest) async throws -> Echo {
        let response = try await send(request)
        #expect(response.status == 200)
        return try JSONDecoder().decode(Echo.self, from: response.body.bytes)
    }

    /// The error `operation` fails with, as a `RestingError`; records an issue when it succeeds or fails otherwise.
    func failure(_ operation: () async throws -> HTTPDataResponse, sourceLocation: SourceLocation = #_sourceLocation)
        async -> RestingError?
    {
        do {
            let response = try await operation()
            Issue.record("\(name): expected a failure, got HTTP \(response.status)", sourceLocation: sourceLocation)
        } catch let error as RestingError {
            return error
        } catch {
            Issue.record("\(name): expected a RestingError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

}

/// What the conformance server's `/echo` returns.
struct Echo: Codable {
    let method: String
    let path: String
    let query: [[String]]
    let headers: [[String]]
    let bodyLength: Int
    let bodySHA256: String
    let body: String?

    func values(of name: String) -> [String] {
        headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }
}
