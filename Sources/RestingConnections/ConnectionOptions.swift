import RestingCore

/// How a transport opens and keeps its connections: where a name resolves, which host and port an origin's
/// connections really go to, the address or interface they leave from, how long idle ones are kept, and which
/// resolver answers. Every option is off (the transport's default) until set.
///
/// ```swift
/// var configuration = CurlConfiguration()
/// // Tests that reach a loopback server by its real name, TLS and SNI intact:
/// configuration.connections.hostOverrides = [HostOverride(host: "api.example.com", port: 443, addresses: ["127.0.0.1"])]
/// configuration.connections.idleConnectionTimeout = .seconds(30)
/// let transport = try CurlClient(configuration: configuration)
/// ```
///
/// `CurlClient` honours every option. A transport that cannot honour one says so — `URLSessionClient` fails every
/// call with ``/RestingCore/RestingError/unsupported(feature:transport:)`` naming it — rather than connecting as if it were not
/// set. The options belong to a transport, not to a request: connections are shared by every request of the client,
/// and a per-request route would make them unshareable.
public struct ConnectionOptions: Sendable, Equatable {
    /// Addresses used for a host and port instead of resolving its name. The URL, the `Host` field, TLS's server name
    /// and the certificate check keep the name: only where the connection goes changes.
    public var hostOverrides: [HostOverride] = []
    /// Origins whose connections go to another host and port, their name kept in the request and in TLS.
    public var connectionRoutes: [ConnectionRoute] = []
    /// The local address or network interface every connection leaves from; `nil` lets the system choose.
    public var localEndpoint: LocalEndpoint? = nil
    /// How long an IPv6 attempt gets before an IPv4 one starts beside it (RFC 8305); `nil` for the transport's
    /// default (libcurl's: 200 ms).
    public var happyEyeballsDelay: Duration? = nil
    /// TCP keep-alive probes on idle connections, so that a peer or middlebox that vanished is noticed; `nil` for
    /// none.
    public var tcpKeepAlive: TCPKeepAlive? = nil
    /// The most idle connections kept open for reuse, per driver thread; `nil` for the transport's default.
    public var maximumIdleConnections: Int? = nil
    /// How long a connection may stay idle and still be reused; `nil` for the transport's default (libcurl's: 118 s).
    public var idleConnectionTimeout: Duration? = nil
    /// A DNS-over-HTTPS resolver (RFC 8484) that answers every name lookup, such as
    /// `https://dns.example/dns-query`; `nil` for the system's resolver.
    public var dnsOverHTTPS: String? = nil
    /// How long a name's resolved addresses are kept; `nil` for the transport's default (libcurl's: 60 s), `.zero`
    /// to resolve for every new connection.
    public var dnsCacheLifetime: Duration? = nil

    /// No option set: each transport's defaults.
    public init() {}

    /// The options set, by name, for a transport to refuse those it cannot honour.
    public var setOptions: [String] {
        var names: [String] = []
        if !hostOverrides.isEmpty { names.append("hostOverrides") }
        if !connectionRoutes.isEmpty { names.append("connectionRoutes") }
        if localEndpoint != nil { names.append("localEndpoint") }
        if happyEyeballsDelay != nil { names.append("happyEyeballsDelay") }
        if tcpKeepAlive != nil { names.append("tcpKeepAlive") }
        if maximumIdleConnections != nil { names.append("maximumIdleConnections") }
        if idleConnectionTimeout != nil { names.append("idleConnectionTimeout") }
        if dnsOverHTTPS != nil { names.append("dnsOverHTTPS") }
        if dnsCacheLifetime != nil { names.append("dnsCacheLifetime") }
        return names
    }
}

/// Addresses that a host and port resolve to, in place of a name lookup.
public struct HostOverride: Sendable, Equatable {
    /// The name as URLs spell it (`api.example.com`).
    public var host: String
    /// The port, as URLs to this host give it (or imply it: 443 for `https`, 80 for `http`).
    public var port: Int
    /// IPv4 or IPv6 addresses (`127.0.0.1`, `::1`), tried in order.
    public var addresses: [String]

    /// `host`:`port` resolving to `addresses`.
    public init(host: String, port: Int, addresses: [String]) {
        self.host = host
        self.port = port
        self.addresses = addresses
    }
}

/// An origin whose connections go to another host and port: a blue/green switch, a sidecar, a test server.
public struct ConnectionRoute: Sendable, Equatable {
    /// The origin's host, as its URLs spell it.
    public var host: String
    /// The origin's port.
    public var port: Int
    /// Where its connections go instead.
    public var targetHost: String
    /// The port its connections go to instead.
    public var targetPort: Int

    /// Connections for `host`:`port` go to `targetHost`:`targetPort`.
    public init(host: String, port: Int, to targetHost: String, port targetPort: Int) {
        self.host = host
        self.port = port
        self.targetHost = targetHost
        self.targetPort = targetPort
    }
}

/// Where a connection leaves from.
public enum LocalEndpoint: Sendable, Equatable {
    /// A local IP address.
    case address(String)
    /// A network interface, by name (`eth0`).
    case interface(String)
}

/// TCP keep-alive probes: the first after `idle` without traffic, then one every `interval`.
public struct TCPKeepAlive: Sendable, Equatable {
    /// How long a connection stays silent before the first probe.
    public var idle: Duration
    /// The time between probes once they have begun.
    public var interval: Duration

    /// Probes after `idle` of silence, then every `interval`.
    public init(idle: Duration = .seconds(60), interval: Duration = .seconds(15)) {
        self.idle = idle
        self.interval = interval
    }
}
