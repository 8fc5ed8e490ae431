#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The files of one download to `destination`: the partial file `<destination>.part` that transports write,
/// and its record `<destination>.part.resume` holding the validator that makes resuming safe.
struct PartialDownload {
    let destination: URL
    var file: URL { destination.appendingPathExtension("part") }
    var record: URL { DownloadTarget(file: file).recordFile }

    /// The target for the next attempt: continuing the partial file when it has bytes and a recorded
    /// validator (sent as `If-Range`), from scratch otherwise.
    func target(resuming: Bool, maximumSize: Int64 = DownloadTarget.defaultMaximumSize) -> DownloadTarget {
        guard resuming,
            let saved = try? JSONDecoder().decode(PartialDownloadRecord.self, from: Data(contentsOf: record)),
            let size = FileIO.size(of: file), size > 0
        else {
            remove()
            return DownloadTarget(file: file, maximumSize: maximumSize)
        }
        return DownloadTarget(file: file, offset: size, validator: saved.validator, maximumSize: maximumSize)
    }

    /// Moves the finished file into place, atomically replacing what was there (the partial file sits in the
    /// same directory, so this is one `rename(2)`).
    func complete() throws(RestingError) {
        guard FileIO.move(file, to: destination) else {
            throw .downloadFailed(reason: "cannot move the download to \(destination.path): \(FileIO.lastError)")
        }
        FileIO.remove(record)
    }

    /// Deletes the partial file and its record.
    func remove() {
        FileIO.remove(file)
        FileIO.remove(record)
    }
}
