/// What a transport measured for one exchange. Each phase is `nil` when the transport cannot tell it
/// (URLSession on Linux reports none of them). A streamed response's head carries what was known when the head
/// arrived: the protocol, the connection, and the phases up to the first byte, not the total or the sizes.
public struct TransferMetrics: Sendable, Equatable {
    /// Resolving the host's name.
    public var nameLookup: Duration?
    /// From the start to the TCP connection (name lookup included).
    public var connect: Duration?
    /// The TLS handshake alone.
    public var tlsHandshake: Duration?
    /// From the start to the first byte of the response.
    public var timeToFirstByte: Duration?
    /// The whole exchange.
    public var total: Duration?
    /// Bytes of body sent.
    public var bytesSent: Int64?
    /// Bytes of body received.
    public var bytesReceived: Int64?
    /// The HTTP version that carried the exchange, spelled as OpenTelemetry's `network.protocol.version`: `"1.0"`,
    /// `"1.1"`, `"2"` or `"3"`.
    public var protocolVersion: String?
    /// Whether the exchange went over a connection an earlier one had opened (kept alive, or multiplexed), rather
    /// than one opened for it.
    public var reusedConnection: Bool?

    /// Metrics with the phases a transport measured.
    public init(
        nameLookup: Duration? = nil, connect: Duration? = nil, tlsHandshake: Duration? = nil,
        timeToFirstByte: Duration? = nil, total: Duration? = nil, bytesSent: Int64? = nil,
        bytesReceived: Int64? = nil, protocolVersion: String? = nil, reusedConnection: Bool? = nil
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.timeToFirstByte = timeToFirstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.protocolVersion = protocolVersion
        self.reusedConnection = reusedConnection
    }
}
