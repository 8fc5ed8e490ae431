import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses connections until ``release()``: bound, never listening.
///
/// A port merely found free and released — or a stopped server's — can be taken by any server another test starts
/// meanwhile, which would then answer a request meant to be refused. Holding the port bound keeps it from them (the
/// kernel gives a server asking for any free port one that nothing is bound to), and a TCP connection to a bound socket
/// that does not listen is refused at once. `SO_REUSEADDR`, as servers set it, lets a stopped server's port be held
/// although its last connections linger in `TIME_WAIT`.
///
/// ```swift
/// let refusing = try RefusingPort()
/// defer { refusing.release() }  // also what keeps it alive until then
/// let url = "http://127.0.0.1:\(refusing.port)/"  // connection refused
/// ```
public final class RefusingPort: Sendable {
    /// Why the port could not be held.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port number.
    public let port: Int
    private let descriptor: Locked<Int32?>

    /// Holds `port` (any free one when `0`), for instance a stopped server's. Fails when something else holds it.
    public init(port: Int = 0) throws {
        let descriptor = Loopback.tcpSocket()
        guard descriptor >= 0 else { throw Unavailable(description: "socket() failed") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let (bound, boundPort) = Loopback.withAddress(port: port) { address, length in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
        guard bound else {
            close(descriptor)
            throw Unavailable(description: "port \(port) is held by something else")
        }
        self.descriptor = Locked(descriptor)
        self.port = boundPort
    }

    /// Frees the port, for a server to listen on it.
    public func release() {
        if let descriptor = descriptor.withLock({ $0.take() }) { close(descriptor) }
    }

    deinit { release() }
}
