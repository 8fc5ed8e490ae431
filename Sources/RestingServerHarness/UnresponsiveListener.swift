import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port where connecting never completes: a listener that never accepts, with its accept queue
/// filled, so that Linux drops further SYNs — and, on UDP, a socket bound to the same port that never reads, so that a
/// QUIC handshake never completes either (nothing answers, not even a refusal). For connect-timeout tests, with no
/// traffic leaving the machine.
public final class UnresponsiveListener: @unchecked Sendable {  // descriptors are only touched in init and deinit
    public let port: Int
    private var descriptors: [Int32] = []

    /// A silent listener on 127.0.0.1, on a free port.
    public convenience init() throws { try self.init(port: 0, family: .ipv4) }

    /// A silent listener on ::1 at `port`: beside a server on 127.0.0.1 at the same port, a name that resolves to both
    /// has one address that stays silent and one that answers, as Happy Eyeballs meets them.
    public convenience init(ipv6LoopbackPort port: Int) throws { try self.init(port: port, family: .ipv6) }

    private init(port: Int, family: Loopback.Family) throws {
        // A port free on TCP may be taken on UDP: then another.
        for _ in 0..<20 {
            var held: [Int32] = []
            let bound: Int?
            do {
                bound = try Self.listenSilently(port: port, family: family, holding: &held)
            } catch {
                for descriptor in held { close(descriptor) }
                throw error
            }
            if let bound {
                self.port = bound
                descriptors = held
                return
            }
            for descriptor in held { close(descriptor) }
            guard port == 0 else { break }
        }
        throw LocalServer.StartError.didNotStart("no port free on both TCP and UDP")
    }

    /// Listens on `port` (any, for 0), silently on both protocols, the sockets added to `descriptors`; the port, or
    /// `nil` when it is taken on UDP.
    private static func listenSilently(port: Int, family: Loopback.Family, holding descriptors: inout [Int32]) throws
        -> Int?
    {
        let listener = try socket(family)
        descriptors.append(listener)
        let (listening, boundPort) = Loopback.withAddress(port: port, family: family) { address, length in
            bind(listener, address, length) == 0 && listen(listener, 0) == 0
                && getsockname(listener, address, &length) == 0
        }
        guard listening else {
            throw LocalServer.StartError.didNotStart("cannot listen: \(String(cString: strerror(errno)))")
        }
        let datagrams = Loopback.udpSocket(family)
        guard datagrams >= 0 else { throw LocalServer.StartError.didNotStart("socket() failed") }
        descriptors.append(datagrams)
        let (bound, _) = Loopback.withAddress(port: boundPort, family: family) { address, length in
            bind(datagrams, address, length) == 0
        }
        guard bound else { return nil }
        // Fill the accept queue; with it full, the kernel drops new SYNs (the client retries until it gives up).
        for _ in 0..<3 {
            let filler = try socket(family)
            descriptors.append(filler)
            var flags = fcntl(filler, F_GETFL)
            flags |= O_NONBLOCK
            _ = fcntl(filler, F_SETFL, flags)
            _ = Loopback.connect(filler, toPort: boundPort, family: family)
        }
        return boundPort
    }

    deinit { for descriptor in descriptors { close(descriptor) } }

    private static func socket(_ family: Loopback.Family) throws -> Int32 {
        let descriptor = Loopback.tcpSocket(family)
        guard descriptor >= 0 else { throw LocalServer.StartError.didNotStart("socket() failed") }
        return descriptor
    }
}
