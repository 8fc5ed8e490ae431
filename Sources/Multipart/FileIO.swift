import Foundation

/// The POSIX file calls that streaming bodies to and from disk needs — retried on `EINTR`, failures described by
/// `errno` — in one place for multipart bodies, file bodies and downloads (Core uses it too).
package enum FileIO {
    /// The text of the current `errno`: read it right after the call that failed.
    package static var lastError: String { String(cString: strerror(errno)) }

    /// `read(2)` into `buffer`: the bytes read, 0 at the end of the file, `nil` on failure (see ``lastError``).
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = Foundation.read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    /// Writes all of `bytes`, through short writes; `false` on failure (see ``lastError``).
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var base = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Foundation.write(descriptor, base, remaining)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            base += written
            remaining -= written
        }
        return true
    }

    /// The length of the file at `url`, or `nil` when it cannot be read from the file system.
    package static func size(of url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}
