import Foundation
import RestingServerHarness

/// The CrashProbe executable (the package in Tests/CrashProbe, which `make test` builds first): a process apart from
/// the tests, which the crash tests of the durable stores kill, and which the proxy-environment tests start with
/// variables of their own (setting them in the test process would reroute every other test's calls).
public enum Probe {
    /// Whether this test process runs under AddressSanitizer or ThreadSanitizer (their runtimes are linked in).
    public static let underSanitizer = ["__asan_init", "__tsan_init"].contains { (name: String) in
        #if canImport(Glibc)
        let scope: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        let scope = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        return dlsym(scope, name) != nil
    }

    /// Where `make probe` builds it (the tool packages' shared build folder, .build/tools).
    public static var executable: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/tools/debug/CrashProbe")
    }

    /// Runs the probe with `environment` and reads its output; after `killAfter` lines (if given) kills it with
    /// SIGKILL. Runs on a Dispatch thread: reading a pipe blocks, which the cooperative pool must never do.
    public static func run(
        _ arguments: [String], killAfter limit: Int?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> [String] {
        try await outcome(arguments, killAfter: limit, environment: environment).lines
    }

    /// Runs the probe to its end: the lines it printed, and its exit status (128 + the signal that ended it).
    public static func runToExit(_ arguments: [String]) async throws -> (lines: [String], status: Int32) {
        try await outcome(arguments, killAfter: nil, environment: ProcessInfo.processInfo.environment)
    }

    private static func outcome(
        _ arguments: [String], killAfter limit: Int?, environment: [String: String]
    ) async throws -> (lines: [String], status: Int32) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let probe: ChildProcess
                do { probe = try ChildProcess(executable.path, arguments, environment: environment) } catch {
                    return continuation.resume(throwing: error)
                }
                var lines: [String] = []
                while limit.map({ lines.count < $0 }) ?? true, let line = probe.readLine() { lines.append(line) }
                if limit != nil { probe.send(SIGKILL) }
                continuation.resume(returning: (lines, probe.waitForExit()))
            }
        }
    }
}
