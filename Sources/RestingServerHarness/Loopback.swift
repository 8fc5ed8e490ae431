#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw TCP sockets on 127.0.0.1 (or ::1), for what the harness and the tests do below HTTP: hold a port, connect to
/// one.
package enum Loopback {
    /// Which loopback address: 127.0.0.1 or ::1.
    package enum Family: Sendable {
        case ipv4, ipv6
    }

    /// A new TCP socket's descriptor, or -1.
    package static func tcpSocket(_ family: Family = .ipv4) -> Int32 { socket(family, datagrams: false) }

    /// A new UDP socket's descriptor, or -1.
    package static func udpSocket(_ family: Family = .ipv4) -> Int32 { socket(family, datagrams: true) }

    private static func socket(_ family: Family, datagrams: Bool) -> Int32 {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
        return Glibc.socket(domain, Int32((datagrams ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
        #else
        return Darwin.socket(domain, datagrams ? SOCK_DGRAM : SOCK_STREAM, 0)
        #endif
    }

    /// Calls `body` with 127.0.0.1:`port` (or [::1]:`port`) as a socket address and its length; answers `body`'s
    /// result and the port the address holds after it (which `getsockname` fills in for port 0).
    package static func withAddress<Result>(
        port: Int, family: Family = .ipv4, _ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> Result
    ) -> (result: Result, port: Int) {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let result = withSocketAddress(&address, body)
            return (result, Int(UInt16(bigEndian: address.sin_port)))
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            address.sin6_port = UInt16(port).bigEndian
            let result = withSocketAddress(&address, body)
            return (result, Int(UInt16(bigEndian: address.sin6_port)))
        }
    }

    private static func withSocketAddress<Address, Result>(
        _ address: inout Address, _ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> Result
    ) -> Result {
        var length = socklen_t(MemoryLayout<Address>.size)
        return withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
    }

    /// Connects `descriptor` to 127.0.0.1:`port` (or [::1]:`port`): 0, or `errno`.
    package static func connect(_ descriptor: Int32, toPort port: Int, family: Family = .ipv4) -> Int32 {
        withAddress(port: port, family: family) { systemConnect(descriptor, $0, $1) == 0 ? 0 : errno }.result
    }
}

#if canImport(Glibc)
private let systemConnect = Glibc.connect
#else
private let systemConnect = Darwin.connect
#endif
