import Foundation
import RestingServerHarness
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's stand-in for a server that is gone: a port held bound, never listening.
@Suite("A refusing port of the test harness")
struct RefusingPortTests {
    @Test("a held port refuses connections until it is released, and a server can listen on it after")
    func refusesUntilReleased() throws {
        let refusing = try RefusingPort()
        #expect(connect(toPort: refusing.port) == ECONNREFUSED)

        refusing.release()
        let server = try RefusingPort(port: refusing.port)
        defer { server.release() }
        #expect(server.port == refusing.port)
    }

    /// `errno` of a TCP connection to 127.0.0.1:`port`, or 0 when it connected.
    private func connect(toPort port: Int) -> Int32 {
        let descriptor = Loopback.tcpSocket()
        defer { close(descriptor) }
        return Loopback.connect(descriptor, toPort: port)
    }
}
