import CCurl
import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EasyHandle {
    /// Sets libcurl's options for `connections`; throws for a host, port or address libcurl's syntax cannot carry.
    func apply(_ connections: ConnectionOptions) throws(RestingError) {
        try set(CURLOPT_RESOLVE, lines: connections.hostOverrides.map(Self.resolveLine), "host overrides")
        try set(CURLOPT_CONNECT_TO, lines: connections.connectionRoutes.map(Self.connectToLine), "connection routes")
        switch connections.localEndpoint {
        case nil: break
        case .address(let address): try set(CURLOPT_INTERFACE, "host!\(try Self.ipLiteral(address))", "local address")
        case .interface(let name): try set(CURLOPT_INTERFACE, "if!\(try Self.token(name))", "local interface")
        }
        if let delay = connections.happyEyeballsDelay {
            try set(CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, max(0, delay.wholeMilliseconds), "Happy Eyeballs delay")
        }
        if let keepAlive = connections.tcpKeepAlive {
            try set(CURLOPT_TCP_KEEPALIVE, 1, "TCP keep-alive")
            try set(CURLOPT_TCP_KEEPIDLE, max(1, keepAlive.idle.wholeSecondsRoundedUp), "TCP keep-alive idle time")
            try set(CURLOPT_TCP_KEEPINTVL, max(1, keepAlive.interval.wholeSecondsRoundedUp), "TCP keep-alive interval")
        }
        if let timeout = connections.idleConnectionTimeout {
            // libcurl counts whole seconds, and 0 would mean its default: at least one.
            try set(CURLOPT_MAXAGE_CONN, max(1, timeout.wholeSecondsRoundedUp), "idle connection timeout")
        }
        if let resolver = connections.dnsOverHTTPS { try set(CURLOPT_DOH_URL, resolver, "DNS-over-HTTPS resolver") }
        if let lifetime = connections.dnsCacheLifetime {
            try set(CURLOPT_DNS_CACHE_TIMEOUT, max(0, lifetime.wholeSecondsRoundedUp), "DNS cache lifetime")
        }
    }

    /// Lets the next transfer ride on `connection`; restores what the last one changed.
    func connect(_ connection: TransferConnection) throws(RestingError) {
        let opensConnection = connection == .fresh
        if opensConnection != self.opensConnection {
            try set(CURLOPT_FRESH_CONNECT, opensConnection ? 1 : 0, "fresh connection")
            self.opensConnection = opensConnection
        }
        var connectTimeout = clientConnectTimeout
        if case .connectingWithin(let limit) = connection {
            connectTimeout = min(clientConnectTimeout, Self.timeoutMilliseconds(limit))
        }
        if connectTimeout != clientConnectTimeout || connectTimeoutShortened {
            try set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout, "connect timeout")
            connectTimeoutShortened = connectTimeout != clientConnectTimeout
        }
    }

    /// `host:port:address,address`, IPv6 addresses in brackets.
    static func resolveLine(_ override: HostOverride) throws(RestingError) -> String {
        guard !override.addresses.isEmpty else {
            throw .invalidURL(override.host, reason: "a host override needs at least one address")
        }
        var addresses: [String] = []
        for address in override.addresses {
            let literal = try ipLiteral(address)
            addresses.append(literal.contains(":") ? "[\(literal)]" : literal)
        }
        return "\(try token(override.host)):\(try port(override.port)):\(addresses.joined(separator: ","))"
    }

    /// `host:port:target-host:target-port`.
    static func connectToLine(_ route: ConnectionRoute) throws(RestingError) -> String {
        "\(try token(route.host)):\(try port(route.port)):\(try token(route.targetHost)):\(try port(route.targetPort))"
    }

    /// `name` when it cannot change the shape of a libcurl option line: no separator, space or control character.
    static func token(_ name: String) throws(RestingError) -> String {
        let refused = name.unicodeScalars.contains { scalar in
            scalar.value <= 0x20 || scalar.value == 0x7F || ":,!;[]/".unicodeScalars.contains(scalar)
        }
        guard !name.isEmpty, !refused else {
            throw .invalidURL(name, reason: "not a host name a connection option can carry")
        }
        return name
    }

    static func port(_ port: Int) throws(RestingError) -> Int {
        guard (1...65535).contains(port) else { throw .invalidURL(String(port), reason: "not a TCP port") }
        return port
    }

    /// `address` when it is an IPv4 or IPv6 literal.
    static func ipLiteral(_ address: String) throws(RestingError) -> String {
        var storage = in6_addr()
        let isIPv4 = address.withCString { inet_pton(AF_INET, $0, &storage) } == 1
        let isIPv6 = address.withCString { inet_pton(AF_INET6, $0, &storage) } == 1
        guard isIPv4 || isIPv6 else { throw .invalidURL(address, reason: "not an IPv4 or IPv6 address") }
        return address
    }
}
