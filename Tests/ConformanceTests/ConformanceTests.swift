import Foundation
import RestingCore
import RestingCurl
import RestingTesting
import RestingTransportConformance
import RestingURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transports that run the conformance suite.
enum Transports {
    /// `CurlClient`; with `socketWaiting` `.poll`, its upgraded connections wait as on every platform but Linux.
    static func curl(socketWaiting: SocketWaiting = .platformDefault) async throws -> TransportConformance {
        let name = socketWaiting == .platformDefault ? "CurlClient" : "CurlClient (\(socketWaiting))"
        return try await TransportConformance(name: name, capabilities: .init()) { settings in
            var configuration = CurlConfiguration()
            configuration.socketWaiting = socketWaiting
            configuration.idleTimeout = settings.idleTimeout ?? .seconds(60)
            if let limit = settings.maximumResponseSize { configuration.maximumResponseSize = limit }
            if let connectTimeout = settings.connectTimeout { configuration.connectTimeout = connectTimeout }
            if let rate = settings.minimumTransferRate { configuration.minimumTransferRate = rate }
            return try CurlClient(configuration: configuration)
        }
    }

    static func urlSession() async throws -> TransportConformance {
        var capabilities = TransportConformance.Capabilities()
        capabilities.preservesRequestHeaderCase = false
        capabilities.preservesRepeatedResponseHeaders = false
        capabilities.survivesTrailers = false
        // FoundationNetworking takes any protocol name libcurl takes (`Http/1.1` too), and reports no version.
        capabilities.readsStatusLines = false
        // FoundationNetworking cannot stop receiving: a reader that falls behind gets its body from a spill file.
        capabilities.pausesReading = false
        // It spools a body from an async sequence until the sequence ends: half duplex.
        capabilities.fullDuplex = false
        // FoundationNetworking sends no trailer section, and traps on a response with one.
        capabilities.handlesTrailers = false
        // URLSession hands no connection over after a 101 (it speaks WebSocket itself where it can).
        capabilities.upgradesConnections = false
        return try await TransportConformance(name: "URLSessionClient", capabilities: capabilities) { settings in
            let configuration = URLSessionConfiguration.ephemeral
            // FoundationNetworking has no separate connect timeout: its request timeout (whole seconds) bounds both.
            if let idle = settings.idleTimeout ?? settings.connectTimeout {
                // FoundationNetworking converts it to Int milliseconds without a check: keep it within range.
                configuration.timeoutIntervalForRequest = min(max(1, Double(idle.components.seconds)), 1e9)
            }
            return URLSessionClient(
                configuration: configuration, maximumResponseSize: settings.maximumResponseSize ?? 64 * 1024 * 1024,
                minimumTransferRate: settings.minimumTransferRate ?? .default)
        }
    }
}

extension Transports {
    /// The stub answers from ``ConformanceModel``; it has no wire, so it decodes no content codings and takes no
    /// connect timeout.
    static func stub() async throws -> TransportConformance {
        var capabilities = TransportConformance.Capabilities()
        capabilities.decodesContentCodings = false
        capabilities.opensConnections = false
        let model = ConformanceModel()
        return try await TransportConformance(name: "StubHTTPClient", capabilities: capabilities, server: model) {
            settings in
            guard settings.connectTimeout == nil else {
                throw RestingError.unsupported(feature: "a connect timeout", transport: "StubHTTPClient")
            }
            return StubHTTPClient(
                idleTimeout: settings.idleTimeout,
                maximumResponseSize: settings.maximumResponseSize ?? 64 * 1024 * 1024,
                fallback: model.respond)
        }
    }
}

@Suite("Transport conformance", .timeLimit(.minutes(5)))
struct ConformanceTests {
    static let names = ["CurlClient", "URLSessionClient", "StubHTTPClient"]

    private func suite(_ name: String) async throws -> TransportConformance {
        switch name {
        case "CurlClient": try await Transports.curl()
        case "URLSessionClient": try await Transports.urlSession()
        default: try await Transports.stub()
        }
    }

    @Test("every method reaches the server", arguments: names)
    func methods(_ name: String) async throws { try await suite(name).methods() }

    @Test("request headers keep order, repeats and (where possible) case", arguments: names)
    func requestHeaders(_ name: String) async throws { try await suite(name).requestHeaders() }

    @Test("bodies of 0 B, 1 B and 1 MiB from memory and from a file arrive whole, twice", arguments: names)
    func requestBodies(_ name: String) async throws { try await suite(name).requestBodies() }

    @Test("timeouts of any size are accepted without overflow", arguments: names)
    func hugeTimeouts(_ name: String) async throws { try await suite(name).hugeTimeouts() }

    @Test("a caller's framing headers never reach the server", arguments: names)
    func framingHeaders(_ name: String) async throws { try await suite(name).framingHeaders() }

    @Test("invalid headers, methods, bodies and URL schemes are refused before sending", arguments: names)
    func invalidRequests(_ name: String) async throws { try await suite(name).invalidRequests() }

    @Test("1000 concurrent requests all complete", arguments: names)
    func concurrentRequests(_ name: String) async throws { try await suite(name).concurrentRequests() }

    @Test("204, 304, 404 and 500 are responses, with or without bodies", arguments: names)
    func statuses(_ name: String) async throws { try await suite(name).statuses() }

    @Test("401 and 407 with authentication challenges are returned at once", arguments: names)
    func authenticationChallenges(_ name: String) async throws { try await suite(name).authenticationChallenges() }

    @Test("trailers never become headers", arguments: names)
    func trailersAreNotHeaders(_ name: String) async throws { try await suite(name).trailersAreNotHeaders() }

    @Test("a chunked body with trailers leaves a kept-alive connection ready for the next request", arguments: names)
    func trailersOnAKeptConnection(_ name: String) async throws { try await suite(name).trailersOnAKeptConnection() }

    @Test("an empty reason phrase is a response; every malformed status line is malformedResponse", arguments: names)
    func statusLines(_ name: String) async throws { try await suite(name).statusLines() }

    @Test("repeated response headers are received", arguments: names)
    func responseHeaders(_ name: String) async throws { try await suite(name).responseHeaders() }

    @Test("a body past the size limit fails with responseTooLarge", arguments: names)
    func responseSizeLimit(_ name: String) async throws { try await suite(name).responseSizeLimit() }

    @Test("progress only moves forward and ends with every byte counted", arguments: names)
    func progress(_ name: String) async throws { try await suite(name).progress() }

    @Test("gzip and deflate responses are decoded", arguments: names)
    func decompression(_ name: String) async throws { try await suite(name).decompression() }

    @Test("redirects change or keep method and body by status", arguments: names)
    func redirectMethodsAndBodies(_ name: String) async throws { try await suite(name).redirectMethodsAndBodies() }

    @Test("redirect chains are limited and loops detected", arguments: names)
    func redirectLimitsAndLoops(_ name: String) async throws { try await suite(name).redirectLimitsAndLoops() }

    @Test("credentials are dropped on a cross-origin redirect", arguments: names)
    func redirectCredentials(_ name: String) async throws { try await suite(name).redirectCredentials() }

    @Test("redirects to other schemes are never followed", arguments: names)
    func redirectSchemes(_ name: String) async throws { try await suite(name).redirectSchemes() }

    @Test("total, idle and connect timeouts are typed", arguments: names)
    func timeouts(_ name: String) async throws { try await suite(name).timeouts() }

    @Test("a server dripping a byte a second is cut off with default settings", arguments: names)
    func dripWithDefaults(_ name: String) async throws { try await suite(name).dripWithDefaults() }

    @Test("cancelling mid-request, mid-upload and mid-download is prompt and typed", arguments: names)
    func cancellation(_ name: String) async throws { try await suite(name).cancellation() }

    @Test("a kept-alive connection is reused, and never after a fault", arguments: names)
    func reuseAfterFault(_ name: String) async throws { try await suite(name).reuseAfterFault() }

    @Test("interim responses, double framing and decompression bombs are handled", arguments: names)
    func unusualFraming(_ name: String) async throws { try await suite(name).unusualFraming() }

    @Test("each way a server misbehaves ends in its exact kind of transport error", arguments: names)
    func faults(_ name: String) async throws { try await suite(name).faults() }
}

/// Streamed response bodies, on the transports with a wire (``StubHTTPClient``'s streams are specified in
/// `StubStreamingTests`: it has no socket to fill or to close).
@Suite("Transport conformance: streamed bodies", .timeLimit(.minutes(5)))
struct StreamingConformanceTests {
    static let names = ["CurlClient", "URLSessionClient"]

    private func suite(_ name: String) async throws -> TransportConformance {
        name == "CurlClient" ? try await Transports.curl() : try await Transports.urlSession()
    }

    @Test("the head comes first and each chunk as soon as it is sent", arguments: names)
    func streamsWithoutBuffering(_ name: String) async throws { try await suite(name).streamsWithoutBuffering() }

    @Test("the minimum transfer rate cuts a dripping buffered call, never a stream", arguments: names)
    func minimumRateSparesStreams(_ name: String) async throws { try await suite(name).minimumRateSparesStreams() }

    @Test("a reader that stops stops the transfer, and the body then arrives whole", arguments: names)
    func backPressure(_ name: String) async throws { try await suite(name).backPressure() }

    @Test("#13 a reader slower than the network holds no more than the buffer", arguments: names)
    func slowReader(_ name: String) async throws { try await suite(name).slowReader() }

    @Test("leaving the loop, cancelling the reader or the stream closes the connection", arguments: names)
    func streamCancellation(_ name: String) async throws { try await suite(name).streamCancellation() }

    @Test("errors mid-stream are the buffered call's errors; idle and head timeouts apply", arguments: names)
    func streamErrors(_ name: String) async throws { try await suite(name).streamErrors() }

    @Test("a streamed body is read once; redirects are followed first", arguments: names)
    func streamShape(_ name: String) async throws { try await suite(name).streamShape() }

    @Test("a body produced while its response is read; in full duplex, an interleave the server ends", arguments: names)
    func duplex(_ name: String) async throws { try await suite(name).duplex() }

    @Test("trailers both ways where the transport has them, refused as unsupported elsewhere", arguments: names)
    func trailers(_ name: String) async throws { try await suite(name).trailers() }
}

/// WebSockets, on the transports with a wire: `CurlClient` upgrades connections; `URLSessionClient` hands none over
/// (it speaks WebSocket itself where FoundationNetworking can, and refuses typed elsewhere).
/// `CurlClient (poll)` waits for its sockets with `poll(2)`, as on Apple platforms, instead of Linux's `epoll`: every
/// check but the long one of messages (whose waits the others have too) runs both loops here.
@Suite("Transport conformance: WebSockets", .timeLimit(.minutes(5)))
struct WebSocketConformanceTests {
    static let names = ["CurlClient", "URLSessionClient"]
    static let namesWithBothLoops = names + ["CurlClient (poll)"]

    private func suite(_ name: String) async throws -> TransportConformance {
        switch name {
        case "CurlClient": try await Transports.curl()
        case "CurlClient (poll)": try await Transports.curl(socketWaiting: .poll)
        default: try await Transports.urlSession()
        }
    }

    @Test(
        "messages of 0 B to 16 MiB, compressed or not, fragmented with pings between, sent concurrently",
        arguments: names)
    func webSocketMessages(_ name: String) async throws { try await suite(name).webSocketMessages() }

    @Test("the close handshake both ways, with codes and reasons", arguments: namesWithBothLoops)
    func webSocketClosing(_ name: String) async throws { try await suite(name).webSocketClosing() }

    @Test(
        "a refused or invalid upgrade, every protocol violation, a bomb, a vanishing or silent server",
        arguments: namesWithBothLoops)
    func webSocketHostilePeers(_ name: String) async throws { try await suite(name).webSocketHostilePeers() }

    @Test(
        "back-pressure both ways: a reader that does not read, a server that does not read",
        arguments: namesWithBothLoops)
    func webSocketBackPressure(_ name: String) async throws { try await suite(name).webSocketBackPressure() }
}
