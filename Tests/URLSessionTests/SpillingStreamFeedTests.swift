import Foundation
import RestingCore
import Testing

@testable import RestingURLSession

/// URLSession cannot be paused: what the reader has not taken yet waits in a spill file. That file holds the unread
/// part, not the whole body.
@Suite("URLSession's spill file")
struct SpillingStreamFeedTests {
    @Test("#9 a reader 2 MiB behind an 11 MiB body under a 4 MiB limit: the file stays near the unread part")
    func spillFileHoldsTheUnreadPart() async throws {
        let chunk = Data(repeating: 0x61, count: 64 * 1024)
        let (stream, feed) = SpillingStreamFeed.makeStream(bufferSize: 64 * 1024, spillLimit: 4 << 20, onCancel: {})
        var iterator = stream.makeAsyncIterator()
        var unread: Int64 = 0
        var received = 0
        var largestFile: Int64 = 0
        for index in 0..<176 {
            #expect(feed.receive(chunk), "chunk \(index) accepted")
            unread += Int64(chunk.count)
            // The reader keeps about 2 MiB behind the network: the file never drains completely.
            while unread > 2 << 20, let taken = try await iterator.next() {
                unread -= Int64(taken.count)
                received += taken.count
            }
            largestFile = max(largestFile, feed.spillFileSize)
            #expect(feed.spillFileSize <= 2 * unread + SpillingStreamFeed.compactionThreshold + Int64(chunk.count))
        }
        feed.finish(nil)
        while let taken = try await iterator.next() { received += taken.count }
        #expect(received == 176 * chunk.count, "every byte delivered")
        #expect(largestFile < 6 << 20, "largest spill file \(largestFile) bytes for an 11 MiB body")
    }
}
