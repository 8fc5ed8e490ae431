import Foundation
import RestingServerHarness
import RestingTestSupport
import RestingTransportConformance
import Testing

/// A process may exit while `CurlClient`'s drivers are still at work: closing connections after the client was
/// released, receiving a body nobody waits for any more. OpenSSL frees its state in an exit handler unless told not to,
/// and a driver in TLS then takes a freed lock: the benchmark's HTTP/2 runs, which release their client and return
/// from main, died at exit in 4 of 432 (a segmentation fault, "double free or corruption"). The probe makes the race
/// certain: its own exit handler, which runs after OpenSSL's would, sends over the client's TLS connection.
@Suite("CurlClient as its process exits", .timeLimit(.minutes(5)))
struct ProcessExitTests {
    @Test("a driver using TLS while the process exits does not crash it")
    func tlsAtExit() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await fixtures.server()
        let url = "https://127.0.0.1:\(server.port)/bytes/100"
        let (lines, status) = try await Probe.runToExit(["tls-at-exit", fixtures.path("ca.pem"), url])
        #expect(lines == ["before exit 200", "at exit 200"])
        #expect(status == 0, "the probe's exit status (128 + a signal's number when one ended it)")
    }
}
