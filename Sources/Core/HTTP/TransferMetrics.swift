/// What a transport measured for one exchange. Each phase is `nil` when the transport cannot tell it
/// (URLSession on Linux reports none of them).
public struct TransferMetrics: Sendable, Equatable {
    public var nameLookup: Duration?
    public var connect: Duration?
    public var tlsHandshake: Duration?
    public var timeToFirstByte: Duration?
    public var total: Duration?
    public var bytesSent: Int64?
    public var bytesReceived: Int64?

    public init(
        nameLookup: Duration? = nil, connect: Duration? = nil, tlsHandshake: Duration? = nil,
        timeToFirstByte: Duration? = nil, total: Duration? = nil, bytesSent: Int64? = nil,
        bytesReceived: Int64? = nil
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.timeToFirstByte = timeToFirstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }
}
