import Foundation

/// The SHA-256 of `count` chunks of `size` bytes where every byte of chunk `i` is `i % 251` — what the upload tests'
/// producers yield — computed by Python's hashlib: hashing 100 MiB in a debug build under a sanitizer would take
/// minutes.
public enum ChunkPatternDigest {
    public static func sha256(chunkSize size: Int, count: Int) throws -> String {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let program = """
            import hashlib
            h = hashlib.sha256()
            for i in range(\(count)):
                h.update(bytes([i % 251]) * \(size))
            print(h.hexdigest())
            """
        python.arguments = ["python3", "-c", program]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        let digest = output.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return String(decoding: digest, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
