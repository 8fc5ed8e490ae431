/// The limits the shipped transports and `RestingClient` start from, so that a request behaves the same whichever
/// transport carries it. Custom transports can start from them too.
///
/// ```swift
/// let transport = StubHTTPClient(maximumResponseSize: TransportDefaults.maximumResponseSize / 4)
/// ```
public enum TransportDefaults {
    /// How many redirects a call follows before it fails with ``TransportError/Kind/tooManyRedirects``: 10.
    public static let maximumRedirects = 10
    /// The largest response body held in memory, 64 MiB; downloads go to their file and streamed bodies to
    /// their reader, so neither is bounded by it.
    public static let maximumResponseSize: Int64 = 64 * 1024 * 1024
}
