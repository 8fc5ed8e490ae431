import Foundation
import RestingCore

extension SHA256 {
    /// The digest of the file at `url` as lowercase hex, read a chunk at a time.
    package static func hex(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalizeHex()
    }
}

/// Digests of files, for the demo to compare with what image_server reports it received.
public enum FileDigest {
    /// The SHA-256 of the file at `url`, as lowercase hex.
    public static func sha256Hex(of url: URL) throws -> String { try SHA256.hex(ofFile: url) }
}
