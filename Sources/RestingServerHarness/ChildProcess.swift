import Foundation
import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A helper program — a Python server, a shell, the crash probe — started with `posix_spawn`, its standard output
/// (and optionally its standard input) on a pipe.
///
/// Not Foundation's `Process`: before swift-corelibs-foundation#5472 (May 2026), `Process.run()` on Linux copies
/// whole `dirent` records while closing the child's descriptors, reading past the end of glibc's `readdir` buffer —
/// AddressSanitizer stops the test run on it, and without the sanitizer it can crash. Here the child inherits only
/// its standard streams: every other descriptor is closed by the spawn itself (`closefrom` on Linux,
/// `POSIX_SPAWN_CLOEXEC_DEFAULT` on Darwin), so a helper never holds one of the tests' sockets open.
///
/// Reading and waiting block the calling thread: call them from a Dispatch thread, never from the cooperative pool
/// (``exitStatus()`` does so for you).
///
/// ```swift
/// let (status, output) = try await ChildProcess.run("/bin/sh", ["-c", "echo hello"])  // 0, "hello\n"
/// ```
public final class ChildProcess: Sendable {
    // Darwin imports the spawn types as optional pointers, glibc as structs.
    #if canImport(Darwin)
    private typealias SpawnActions = posix_spawn_file_actions_t?
    private typealias SpawnAttributes = posix_spawnattr_t?
    #else
    private typealias SpawnActions = posix_spawn_file_actions_t
    private typealias SpawnAttributes = posix_spawnattr_t
    #endif

    /// Why a child could not be started, or what it did wrong.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with its `errno` meaning.
        public let description: String

        public init(_ description: String) { self.description = description }
    }

    /// The child's process identifier.
    public let identifier: pid_t
    private let state: Locked<State>

    private struct State {
        /// This process's ends of the pipes, until closed.
        var input: Int32?
        var output: Int32?
        /// The exit status, once reaped.
        var exited: Int32?
    }

    /// Starts `executable` (a path) with `arguments` and `environment` (by default, this process's). Its standard
    /// output is readable with ``readLine()`` and ``readToEnd()``; with `pipingInput`, its standard input is a pipe
    /// that ``closeInput()`` closes (otherwise it inherits this process's). Standard error is inherited.
    public init(
        _ executable: String, _ arguments: [String], pipingInput: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let outputPipe = try Self.pipe()
        let inputPipe = pipingInput ? try Self.pipe() : nil
        defer {
            // The child has its own copies now; this process keeps only its ends.
            close(outputPipe.write)
            if let inputPipe { close(inputPipe.read) }
        }

        #if canImport(Darwin)
        var actions: SpawnActions = nil
        var attributes: SpawnAttributes = nil
        #else
        var actions = SpawnActions()
        var attributes = SpawnAttributes()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        if let inputPipe { posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0) }
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        try Self.closeEveryOtherDescriptor(&actions, &attributes)
        Self.resetSignals(&attributes)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for string in argv + environment { free(string) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
        guard status == 0 else {
            close(outputPipe.read)
            if let inputPipe { close(inputPipe.write) }
            throw Failure("posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        identifier = pid
        state = Locked(State(input: inputPipe?.write, output: outputPipe.read))
    }

    /// Runs `executable` to its end on a Dispatch thread: its exit status and everything it wrote to standard output.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let child = try ChildProcess(executable, arguments)
                        let output = child.readToEnd()
                        return (child.waitForExit(), output)
                    })
            }
        }
    }

    /// Reads the child's standard output up to and without the next newline; `nil` at its end. Blocks.
    public func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while let descriptor = state.withLock({ $0.output }), read(descriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    /// Reads the child's standard output until it ends. Blocks.
    public func readToEnd() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while let descriptor = state.withLock({ $0.output }) {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return data
    }

    /// Closes the child's standard input (when it is a pipe): a child that exits at its end, like the bundled
    /// servers started with `--exit-with-stdin`, exits.
    public func closeInput() {
        if let descriptor = state.withLock({ $0.input.take() }) { close(descriptor) }
    }

    /// Closes this end of the child's standard output: what the child writes next fails with a broken pipe.
    public func closeOutput() {
        if let descriptor = state.withLock({ $0.output.take() }) { close(descriptor) }
    }

    /// Sends `signal` (such as `SIGKILL`) to the child, unless it has been reaped.
    public func send(_ signal: Int32) {
        state.withLock { if $0.exited == nil { _ = kill(identifier, signal) } }
    }

    /// Waits for the child to exit and reaps it; the exit status, or 128 + the signal that ended it. Blocks; one
    /// waiter at a time.
    @discardableResult
    public func waitForExit() -> Int32 {
        if let status = state.withLock({ $0.exited }) { return status }
        var status: Int32 = 0
        while waitpid(identifier, &status, 0) == -1, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
        state.withLock { $0.exited = code }
        return code
    }

    /// Waits for the child to exit on a Dispatch thread, so the cooperative pool never blocks.
    @discardableResult
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.waitForExit()) }
        }
    }

    deinit {
        closeInput()
        closeOutput()
        if state.withLock({ $0.exited }) == nil {
            // Reap it once it exits, so no zombie is left behind.
            DispatchQueue.global().async { [identifier] in
                var status: Int32 = 0
                while waitpid(identifier, &status, 0) == -1, errno == EINTR {}
            }
        }
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let made = Glibc.pipe(&descriptors)
        #else
        let made = Darwin.pipe(&descriptors)
        #endif
        guard made == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        return (descriptors[0], descriptors[1])
    }

    /// Starts the child with no signal blocked and every signal's default action, whatever the starting thread has
    /// blocked or ignored — a Dispatch worker, where helpers are started, blocks nearly every signal — so that a
    /// helper that waits for a signal (nginx, stopped with SIGQUIT) sees it.
    private static func resetSignals(_ attributes: inout SpawnAttributes) {
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    /// Makes the spawn close every descriptor but the child's standard streams.
    private static func closeEveryOtherDescriptor(
        _ actions: inout SpawnActions, _ attributes: inout SpawnAttributes
    ) throws {
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        // glibc 2.34 and later; `<spawn.h>` declares it only under `_GNU_SOURCE`, which Swift's Glibc module lacks.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<SpawnActions>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { throw Failure("posix_spawn_file_actions_addclosefrom_np needs glibc 2.34 or later") }
        let status = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        guard status == 0 else {
            throw Failure("posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(status)))")
        }
        #endif
    }
}
