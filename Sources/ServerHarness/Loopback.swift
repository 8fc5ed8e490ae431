#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw TCP sockets on 127.0.0.1, for what the harness and the tests do below HTTP: hold a port, connect to one.
package enum Loopback {
    /// A new TCP socket's descriptor, or -1.
    package static func tcpSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    /// Calls `body` with 127.0.0.1:`port` as a socket address and its length; answers `body`'s result and the port the
    /// address holds after it (which `getsockname` fills in for port 0).
    package static func withAddress<Result>(
        port: Int, _ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> Result
    ) -> (result: Result, port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
        return (result, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Connects `descriptor` to 127.0.0.1:`port`: 0, or `errno`.
    package static func connect(_ descriptor: Int32, toPort port: Int) -> Int32 {
        withAddress(port: port) { systemConnect(descriptor, $0, $1) == 0 ? 0 : errno }.result
    }
}

#if canImport(Glibc)
private let systemConnect = Glibc.connect
#else
private let systemConnect = Darwin.connect
#endif
