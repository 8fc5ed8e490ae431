#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file calls that streaming bodies to and from disk needs — retried on `EINTR`, failures described by
/// `errno` — in one place for multipart bodies, file bodies and downloads (Core uses it too).
///
/// It is also why those modules need no more than FoundationEssentials: the C library comes in here alone.
package enum FileIO {
    /// The text of the current `errno`: read it right after the call that failed.
    package static var lastError: String { String(cString: strerror(errno)) }

    /// `open(2)` for reading: the descriptor, or `nil` on failure (see ``lastError``).
    package static func openForReading(_ url: URL) -> Int32? {
        descriptor(open(url.path, O_RDONLY | O_CLOEXEC))
    }

    /// `open(2)` for writing, creating the file with `mode` and, if `truncate`, emptying it. A symbolic link at
    /// `url` is refused (`O_NOFOLLOW`): whoever planted it must not choose where the bytes go.
    package static func openForWriting(_ url: URL, truncate: Bool, mode: mode_t = 0o644) -> Int32? {
        descriptor(open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (truncate ? O_TRUNC : 0), mode))
    }

    /// `open(2)` for writing a file that must not exist yet (mode 0600).
    package static func createNew(_ url: URL) -> Int32? {
        descriptor(open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600))
    }

    /// `open(2)` of a directory, to ``sync(_:)`` it after a rename or an unlink inside it.
    package static func openDirectory(_ url: URL) -> Int32? {
        descriptor(open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
    }

    private static func descriptor(_ result: Int32) -> Int32? { result >= 0 ? result : nil }

    /// Whether `url` itself is a symbolic link (`lstat(2)`: the link, not its target).
    package static func isSymbolicLink(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    /// Takes an exclusive `flock(2)` on `descriptor` without waiting: `false` when someone else holds one (another
    /// open file description, in this process or another). Released when the descriptor is closed.
    package static func lockExclusively(_ descriptor: Int32) -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// `close(2)`; the descriptor is gone whatever it returns.
    package static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
    }

    /// `read(2)` into `buffer`: the bytes read, 0 at the end of the file, `nil` on failure (see ``lastError``).
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, base, buffer.count)
            #elseif canImport(Musl)
            let count = Musl.read(descriptor, base, buffer.count)
            #elseif canImport(Darwin)
            let count = Darwin.read(descriptor, base, buffer.count)
            #endif
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    /// Writes all of `bytes`, through short writes; `false` on failure (see ``lastError``).
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var base = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Glibc)
            let written = Glibc.write(descriptor, base, remaining)
            #elseif canImport(Musl)
            let written = Musl.write(descriptor, base, remaining)
            #elseif canImport(Darwin)
            let written = Darwin.write(descriptor, base, remaining)
            #endif
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            base += written
            remaining -= written
        }
        return true
    }

    /// `fsync(2)`: what was written to the file (or the directory's entries) is on disk when it returns `true`.
    package static func sync(_ descriptor: Int32) -> Bool { fsync(descriptor) == 0 }

    /// Cuts or extends the open file to `length` bytes and puts the write position there.
    package static func truncate(_ descriptor: Int32, to length: Int64) -> Bool {
        ftruncate(descriptor, off_t(length)) == 0 && lseek(descriptor, off_t(length), SEEK_SET) >= 0
    }

    /// `fstat(2)`: the open file's length and whether it is a regular file; `nil` on failure (see ``lastError``).
    package static func status(_ descriptor: Int32) -> (length: Int64, isRegularFile: Bool)? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return (Int64(status.st_size), status.st_mode & S_IFMT == S_IFREG)
    }

    /// The length of the file at `url`, or `nil` when it cannot be read from the file system.
    package static func size(of url: URL) -> Int64? {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int64(status.st_size) : nil
    }

    /// `rename(2)`: replaces `destination` atomically; `false` on failure (see ``lastError``).
    package static func move(_ source: URL, to destination: URL) -> Bool {
        rename(source.path, destination.path) == 0
    }

    /// `unlink(2)`; `true` also when there was nothing to remove.
    @discardableResult
    package static func remove(_ url: URL) -> Bool {
        unlink(url.path) == 0 || errno == ENOENT
    }
}
