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
        #if canImport(Glibc)
        let streamSocket = Int32(SOCK_STREAM.rawValue)
        #else
        let streamSocket = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, streamSocket, 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0 ? 0 : errno
    }
}

#if canImport(Glibc)
private let systemConnect = Glibc.connect
#else
private let systemConnect = Darwin.connect
#endif
