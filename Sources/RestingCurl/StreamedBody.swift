import RestingTransportKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a streamed transfer owns between its head and its body's end (``TransferLifecycle``'s `streaming` state):
/// the producer's end of the reader's stream, the bytes gathered for it, and whether the reader fell behind.
/// Touched on the driver thread only.
final class StreamedBody {
    /// Where the reader's chunks go.
    let feed: ResponseBodyFeed
    /// Body bytes gathered from libcurl's 16 KiB writes into one larger chunk for the reader, handed over when it
    /// is large enough or at the end of the driver's pass (so that nothing waits for more to come).
    var pendingBody = Data()
    /// Whether ``pendingBody`` has room for a whole coalesced chunk, or only for the pass's first write.
    var hasCoalescingCapacity = false
    /// The reader fell behind: the transfer is paused (or will be, at libcurl's next write) until the driver
    /// unpauses it.
    var isPaused = false
    /// The body bytes taken from libcurl's writes: what it received beyond them, it holds — over HTTP/3 without
    /// bound, as it goes on receiving while paused (ngtcp2 has no way to close a stream's window).
    var taken: Int64 = 0
    /// Whether the body comes over HTTP/3, where libcurl receives while paused; known once asked (after the head).
    var arrivesOverQUIC: Bool?
    /// Whether the driver will flush ``pendingBody`` after its current pass.
    var isAwaitingFlush = false

    init(_ feed: ResponseBodyFeed) { self.feed = feed }
}
