import CCurl
import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that waits, with `poll(2)`, until the sockets of upgraded connections can be read or written, and
/// resumes the tasks waiting for them: ten thousand idle WebSockets cost ten thousand registrations at most, and no
/// thread each. A wait is cancellable; ``stop()`` ends the thread once nothing waits.
final class SocketPoller: Sendable {
    /// What a task waits for.
    enum Readiness: Sendable {
        case readable
        case writable

        var events: Int16 { Int16(self == .readable ? POLLIN : POLLOUT) }
    }

    private struct Waiter {
        let socket: Int32
        let readiness: Readiness
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var isStarted = false
        var isStopped = false
    }

    private let state = Locked(State())
    /// Writing a byte to `wake[1]` interrupts the thread's `poll`, so that it sees a new waiter or a stop.
    private let wake: (read: Int32, write: Int32)

    init() throws(RestingError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .transportFailed(
                TransportError(
                    kind: .other, code: Int(errno), domain: "errno", message: "cannot make the poller's wake pipe"))
        }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        wake = (ends[0], ends[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Waits until `socket` is ready as asked (or in error: the read or write that follows says which).
    func wait(until readiness: Readiness, socket: Int32) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = state.withLock { state -> Result<Bool, RestingError> in
                    if state.isStopped { return .failure(.shutDown) }
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters[id] = Waiter(socket: socket, readiness: readiness, continuation: continuation)
                    defer { state.isStarted = true }
                    return .success(!state.isStarted)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(let start):
                    if start { startThread() } else { interrupt() }
                }
            }
        } onCancel: {
            resume(id, throwing: .cancelled)
        }
    }

    /// Fails every wait on `socket` (its connection is closing) with `error`.
    func abandon(_ socket: Int32, with error: RestingError) {
        let waiters = state.withLock { state in
            let ids = state.waiters.filter { $0.value.socket == socket }.map(\.key)
            return ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        interrupt()
    }

    /// Ends the thread; waits still pending fail with ``RestingError/shutDown``.
    func stop() {
        let waiters = state.withLock { state in
            state.isStopped = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: RestingError.shutDown) }
        interrupt()
    }

    private func resume(_ id: UInt64, throwing error: RestingError) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
        interrupt()
    }

    private func interrupt() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self)
        let started = rk_start_thread(
            "resting-poll",
            { context in context.map { Unmanaged<SocketPoller>.fromOpaque($0).takeRetainedValue().run() } },
            context.toOpaque())
        if started != 0 {
            context.release()
            stop()
        }
    }

    /// The thread: polls the waited-for sockets and the wake pipe until stopped.
    private func run() {
        var descriptors: [pollfd] = []
        var ids: [UInt64] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
            let isStopped = state.withLock { state in
                for (id, waiter) in state.waiters {
                    ids.append(id)
                    descriptors.append(pollfd(fd: waiter.socket, events: waiter.readiness.events, revents: 0))
                }
                return state.isStopped
            }
            if isStopped { return }
            let count = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), -1) }
            guard count > 0 else { continue }
            if descriptors[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drain, drain.count) > 0 {}
            }
            let ready = zip(ids, descriptors.dropFirst()).filter { $0.1.revents != 0 }.map(\.0)
            guard !ready.isEmpty else { continue }
            let waiters = state.withLock { state in ready.compactMap { state.waiters.removeValue(forKey: $0) } }
            for waiter in waiters { waiter.continuation.resume() }
        }
    }
}
