import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port where connecting never completes: a listener that never accepts, with its accept queue
/// filled, so that Linux drops further SYNs. For connect-timeout tests, with no traffic leaving the machine.
public final class UnresponsiveListener: @unchecked Sendable {  // descriptors are only touched in init and deinit
    public let port: Int
    private var descriptors: [Int32] = []

    public init() throws {
        let listener = try Self.socket()
        descriptors.append(listener)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 0) == 0
                    && getsockname(listener, generic, &length) == 0
            }
        }
        guard listening else {
            throw LocalServer.StartError.didNotStart("cannot listen: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue; with it full, the kernel drops new SYNs (the client retries until it gives up).
        for _ in 0..<3 {
            let filler = try Self.socket()
            descriptors.append(filler)
            var flags = fcntl(filler, F_GETFL)
            flags |= O_NONBLOCK
            _ = fcntl(filler, F_SETFL, flags)
            var target = Self.loopback(port: port)
            _ = withUnsafeMutablePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    deinit { for descriptor in descriptors { close(descriptor) } }

    private static func socket() throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw LocalServer.StartError.didNotStart("socket() failed") }
        return descriptor
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
