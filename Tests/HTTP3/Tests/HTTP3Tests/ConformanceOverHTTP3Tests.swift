import Foundation
import RestingServerHarness
import RestingTransportConformance
import Testing

@testable import RestingCore
@testable import RestingCurl

/// The conformance server behind an HTTP/3 front: `conformance_h3.py` relays each request stream to it over HTTP/1.1,
/// so that the kit's checks reach a CurlClient for HTTP/3 only as they reach every transport.
struct RelayedConformanceServer: ConformanceBackend {
    let relay: LocalServer
    let upstream: LocalServer

    var port: Int { relay.port }
    var scheme: String { "https" }

    func waitUntilDelaying(tag: String) async throws { try await upstream.waitUntilDelaying(tag: tag) }

    static let shared = Task { () throws -> RelayedConformanceServer in
        let upstream = try await TransportConformance.sharedServer.value
        let relay = try await LocalServer.start(
            script: LocalServer.repository.appendingPathComponent("Tests/HTTP3/conformance_h3.py"),
            arguments: [
                "--upstream", "\(upstream.port)", "--certificate", Peers.folder.appendingPathComponent("relay").path,
            ])
        return RelayedConformanceServer(relay: relay, upstream: upstream)
    }
}

/// The transport conformance kit, run over HTTP/3 against the conformance server behind `conformance_h3.py`: every
/// check of the kit but those that test what HTTP/3 does not have (``notApplicable`` says which, and why).
// One check at a time: the relay is one Python process, and a check that waits on a timing (an idle timeout of a
// second) must not wait on the relay's CPU as well.
@Suite("The transport conformance kit over HTTP/3", .serialized)
struct ConformanceOverHTTP3Tests {
    /// The checks that test what HTTP/3 does not have, each with the reason.
    static let notApplicable: [TransportConformance.Check: String] = [
        .statusLines: "HTTP/3 has no status line: `:status` is a field of a binary frame",
        .reuseAfterFault:
            "it checks HTTP/1.1 keep-alive on the conformance server's connections, which the relay opens one per request; over HTTP/3 a fault resets one stream, and the faults check has the calls after it succeed",
    ]

    /// What CurlClient does over HTTP/3 that differs from HTTP/1.1.
    static var capabilities: TransportConformance.Capabilities {
        var capabilities = TransportConformance.Capabilities()
        // HTTP/3 field names are lowercase on the wire (RFC 9114 §4.2).
        capabilities.preservesRequestHeaderCase = false
        // A WebSocket is an HTTP/1.1 upgrade over TCP, which a client for HTTP/3 only refuses, typed.
        capabilities.upgradesConnections = false
        // libcurl sends request trailers in HTTP/1.1's chunked framing only: over HTTP/3 they are refused, typed.
        // (A response's trailers are read: `survivesTrailers`, and the HTTP/3 suite's own test.)
        capabilities.handlesTrailers = false
        // A server's framing faults are HTTP/1.1's; through the relay each is a reset stream.
        capabilities.readsHTTP1Framing = false
        // libcurl cannot pause a QUIC stream: a reader that stops does not stop the server, and libcurl holds what
        // arrives, up to the client's maximumResponseSize (the HTTP/3 suite's stalled-reader test).
        capabilities.pausesReading = false
        return capabilities
    }

    static func suite() async throws -> TransportConformance {
        let server = try await RelayedConformanceServer.shared.value
        return try await TransportConformance(
            name: "CurlClient over HTTP/3", capabilities: capabilities, server: server
        ) { settings in
            var configuration = CurlConfiguration()
            configuration.httpVersion = .http3Only
            configuration.tls.caFile = Peers.folder.appendingPathComponent("relay/cert.pem").path
            configuration.idleTimeout = settings.idleTimeout ?? .seconds(60)
            if let limit = settings.maximumResponseSize { configuration.maximumResponseSize = limit }
            if let connectTimeout = settings.connectTimeout { configuration.connectTimeout = connectTimeout }
            if let rate = settings.minimumTransferRate { configuration.minimumTransferRate = rate }
            return try CurlClient(configuration: configuration)
        }
    }

    @Test(
        "CurlClient for HTTP/3 only passes the kit's check", .timeLimit(.minutes(3)),
        arguments: TransportConformance.Check.allCases.filter { notApplicable[$0] == nil })
    func conforms(_ check: TransportConformance.Check) async throws {
        try await Self.suite().run(check)
    }
}
