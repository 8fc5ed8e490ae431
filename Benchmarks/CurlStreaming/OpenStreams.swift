import RestingCore
import RestingCurl
import RestingStreaming
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The open-streams benchmark's CurlClient side (`Benchmarks/stream_open.py`): COUNT Server-Sent Events subscriptions
/// through a `RestingClient`, held open at once, each a task reading `ServerSentEvents`. Once every stream has its
/// first event it reads the resident memory and the open file descriptors, asks the server to end the streams, and
/// checks that each gets its last event and ends cleanly. Prints "opened clean kib_per_call fds", as
/// `Benchmarks/c/stream_open.c` does. Linux only (it reads /proc).
enum OpenStreams {
    /// The subscriptions that have had their first event, and the task waiting for all of them.
    private final class Opening: Sendable {
        struct State {
            var opened = 0
            var waiter: CheckedContinuation<Void, Never>?
        }
        private let state = Mutex(State())

        func withLock<Result>(_ body: (inout State) -> Result) -> Result { state.withLock { body(&$0) } }
    }

    static func run(base: String, count: Int) async throws {
        raiseOpenFileLimit()
        // Subscriptions stay silent for as long as the others take to open: no idle or rate floor ends them.
        var configuration = CurlConfiguration()
        configuration.idleTimeout = nil
        configuration.minimumTransferRate = nil
        let client = RestingClient(baseUrl: base, httpClient: try CurlClient(configuration: configuration))
        let subscribe = RestingRequest(endpoint: Endpoint<Nothing, ServerSentEvents>(.get, "/events", encoding: .query))
        let opening = Opening()
        let baseKiB = residentKiB()
        let baseDescriptors = openDescriptors()

        let allOpened = Task {
            await withCheckedContinuation { continuation in
                let done = opening.withLock { state in
                    guard state.opened < count else { return true }
                    state.waiter = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        }
        let clean = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask(executorPreference: client.executor) {
                    var data: [String] = []
                    for try await event in try await client.perform(subscribe).value.body {
                        data.append(event.data)
                        if data.count == 1 {
                            let waiter = opening.withLock { state -> CheckedContinuation<Void, Never>? in
                                state.opened += 1
                                guard state.opened == count else { return nil }
                                defer { state.waiter = nil }
                                return state.waiter
                            }
                            waiter?.resume()
                        }
                    }
                    return data == ["first", "last"]
                }
            }
            await allOpened.value
            let kibPerCall = Double(residentKiB() - baseKiB) / Double(count)
            let descriptors = openDescriptors() - baseDescriptors
            _ = try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/release", encoding: .query))
            ).value
            let clean = try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            print("\(count) \(clean) \(kibPerCall) \(descriptors)")
            return clean
        }
        if clean != count { exit(1) }
    }

    static func raiseOpenFileLimit() {
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        getrlimit(resource, &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(resource, &limit)
    }

    /// The second field of /proc/self/statm (resident pages), in KiB.
    static func residentKiB() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE)) / 1024
    }

    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            // The name's first byte only: glibc's records are as long as their name, so copying the whole `d_name`
            // (256 bytes) can read past the end of its buffer.
            let name = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            if name.load(as: UInt8.self) != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1  // the directory's own descriptor
    }
}
