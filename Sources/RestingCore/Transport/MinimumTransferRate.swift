/// The slowest a response may arrive once it has begun: at least ``bytes`` in every ``window``, or the call
/// fails with ``TransportError/Kind/timedOut``.
///
/// An idle timeout alone cannot bound a call: a server that drips one byte a second is never idle. This floor
/// can: every transport applies ``default`` unless told otherwise, so a drip ends after one window.
///
/// ```swift
/// var configuration = CurlConfiguration()
/// configuration.minimumTransferRate = MinimumTransferRate(bytes: 16 * 1024, window: .seconds(10))
/// ```
///
/// It starts with the first byte of the response: waiting for the server to answer is the idle timeout's
/// business. A stream that legitimately pauses longer (events, long polls) needs `nil` there.
public struct MinimumTransferRate: Sendable, Equatable, CustomStringConvertible {
    /// Bytes that must arrive in each window.
    public var bytes: Int64
    /// How long each window lasts.
    public var window: Duration

    /// At least `bytes` in every `window`.
    public init(bytes: Int64, window: Duration) {
        self.bytes = bytes
        self.window = window
    }

    /// 1 KiB in every 30 seconds: far below any working network, far above a drip.
    public static let `default` = MinimumTransferRate(bytes: 1024, window: .seconds(30))

    public var description: String { "\(bytes) bytes per \(window)" }

    /// The failure a transfer slower than this ends with.
    package func failure(domain: String, code: Int) -> RestingError {
        .transportFailed(
            TransportError(
                kind: .timedOut, code: code, domain: domain,
                message: "the response arrived slower than \(self)"))
    }
}
