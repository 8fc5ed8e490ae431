/// How far a transfer has gone: bytes sent and received, with the totals when they are known.
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// Bytes of the request body sent so far.
    public var bytesSent: Int64
    /// The request body's length; `nil` when unknown (a stream without a length).
    public var totalBytesToSend: Int64?
    /// Bytes of the response body received so far.
    public var bytesReceived: Int64
    /// The response body's length from `Content-Length`; `nil` when the server did not say.
    public var totalBytesToReceive: Int64?

    /// Progress with these counts; a total is `nil` when unknown.
    public init(
        bytesSent: Int64 = 0, totalBytesToSend: Int64? = nil, bytesReceived: Int64 = 0,
        totalBytesToReceive: Int64? = nil
    ) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesToReceive = totalBytesToReceive
    }

    /// Upload progress for a request with a body, download progress otherwise; 0...1, and 0 while the
    /// relevant total is unknown.
    public var fractionCompleted: Double {
        if let total = totalBytesToSend, total > 0 { return Self.fraction(bytesSent, of: total) }
        guard let total = totalBytesToReceive else { return 0 }
        return total == 0 ? 1 : Self.fraction(bytesReceived, of: total)
    }

    private static func fraction(_ done: Int64, of total: Int64) -> Double {
        min(1, max(0, Double(done) / Double(total)))
    }

    public var description: String {
        "sent \(bytesSent)/\(totalBytesToSend.map(String.init) ?? "?"), "
            + "received \(bytesReceived)/\(totalBytesToReceive.map(String.init) ?? "?")"
    }
}

/// Receives progress reports from a transport. Called from the transport's own thread: return quickly.
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void
