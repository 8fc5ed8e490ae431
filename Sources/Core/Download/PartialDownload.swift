import Foundation

/// The files of one download to `destination`: the partial file `<destination>.part` that transports write,
/// and its record `<destination>.part.resume` holding the validator that makes resuming safe.
struct PartialDownload {
    let destination: URL
    var file: URL { destination.appendingPathExtension("part") }

    /// The target for the next attempt: continuing the partial file when it has bytes and a recorded
    /// validator (sent as `If-Range`), from scratch otherwise.
    func target(resuming: Bool) -> DownloadTarget {
        let fresh = DownloadTarget(file: file)
        guard resuming, let record = try? JSONDecoder().decode(PartialDownloadRecord.self, from: Data(contentsOf: fresh.recordFile)),
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value,
            size > 0
        else {
            remove()
            return fresh
        }
        return DownloadTarget(file: file, offset: size, validator: record.validator)
    }

    /// Moves the finished file into place, atomically replacing what was there (the partial file sits in the
    /// same directory, so this is one `rename(2)`).
    func complete() throws(RestingError) {
        guard rename(file.path, destination.path) == 0 else {
            throw .downloadFailed(reason: "cannot move the download to \(destination.path): \(String(cString: strerror(errno)))")
        }
        try? FileManager.default.removeItem(at: DownloadTarget(file: file).recordFile)
    }

    /// Deletes the partial file and its record.
    func remove() {
        try? FileManager.default.removeItem(at: file)
        try? FileManager.default.removeItem(at: DownloadTarget(file: file).recordFile)
    }
}
