import Foundation
import RestingServerHarness

/// The SHA-256 of `count` chunks of `size` bytes where every byte of chunk `i` is `i % 251` — what the upload tests'
/// producers yield — computed by Python's hashlib: hashing 100 MiB in a debug build under a sanitizer would take
/// minutes.
public enum ChunkPatternDigest {
    public static func sha256(chunkSize size: Int, count: Int) async throws -> String {
        let program = """
            import hashlib
            h = hashlib.sha256()
            for i in range(\(count)):
                h.update(bytes([i % 251]) * \(size))
            print(h.hexdigest())
            """
        let (status, digest) = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", program])
        guard status == 0 else { throw ChildProcess.Failure("python3 exited with \(status)") }
        return String(decoding: digest, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
