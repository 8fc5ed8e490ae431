#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An exclusive claim on a ``DurableDirectory``, held from its creation until it is released (deinit): a second
/// claim on the same directory, from this process or another, fails. What keeps two offline queues from
/// replaying the same entries and deleting each other's bodies.
package final class DirectoryLock: Sendable {
    /// The lock file's name: not an entry, a body or a cache file, so no store lists it as one.
    static let fileName = ".lock"
    private let descriptor: Int32

    package init(_ directory: DurableDirectory) throws(RestingError) {
        let file = directory.file(Self.fileName)
        guard let descriptor = FileIO.openForWriting(file, truncate: false, mode: 0o600) else {
            throw .bodyUnreadable(reason: "cannot open \(file.path): \(FileIO.lastError)")
        }
        guard FileIO.lockExclusively(descriptor) else {
            FileIO.close(descriptor)
            throw .bodyUnreadable(reason: "the store at \(directory.url.path) is open in another queue")
        }
        self.descriptor = descriptor
    }

    deinit { FileIO.close(descriptor) }
}
