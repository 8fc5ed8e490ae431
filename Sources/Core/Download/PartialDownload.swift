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

    /// Moves the finished file into place, replacing what was there.
    func complete() throws(RestingError) {
        do {
            if FileManager.default.fileExists(atPath: destination.path) {
                _ = try FileManager.default.replaceItemAt(destination, withItemAt: file)
            } else {
                try FileManager.default.moveItem(at: file, to: destination)
            }
        } catch {
            throw .downloadFailed(reason: "cannot move the download to \(destination.path): \(error)")
        }
        try? FileManager.default.removeItem(at: DownloadTarget(file: file).recordFile)
    }

    /// Deletes the partial file and its record.
    func remove() {
        try? FileManager.default.removeItem(at: file)
        try? FileManager.default.removeItem(at: DownloadTarget(file: file).recordFile)
    }
}
