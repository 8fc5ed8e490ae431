import CCurl
import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How the thread of upgraded connections waits for their sockets (``CurlConfiguration/socketWaiting``).
package enum SocketWaiting: Sendable {
    /// `epoll` with one-shot registrations (Linux only).
    case epoll
    /// `poll(2)` over the waiters' sockets, the list rebuilt at each wake-up.
    case poll

    /// `epoll` on Linux, `poll` elsewhere.
    package static var platformDefault: SocketWaiting {
        #if os(Linux)
        .epoll
        #else
        .poll
        #endif
    }
}

/// One thread that waits until the sockets of upgraded connections can be read or written, and resumes the tasks
/// waiting for them: ten thousand idle WebSockets cost ten thousand registrations, and no thread each. On Linux it is
/// `epoll` with one-shot registrations that each waiter arms itself; elsewhere `poll(2)` over the waiters' sockets,
/// interrupted to see a new one — which Linux runs too when asked (``SocketWaiting/poll``), so that its tests cover
/// that loop. A wait is cancellable; ``stop()`` ends the thread.
///
/// It is also the `TaskExecutor` of the tasks that read its sockets (``CurlUpgradedConnection/readingExecutor``): the
/// thread that sees a socket readable runs its reader at once, instead of waking a thread of the global pool to
/// run it, which would wake another to run the reader's consumer. A job enqueued once the thread has ended runs on
/// the global pool.
final class SocketPoller: TaskExecutor, Sendable {
    /// What a task waits for.
    enum Readiness: Sendable {
        case readable
        case writable

        var events: Int16 { Int16(self == .readable ? POLLIN : POLLOUT) }
    }

    private typealias Waiters = SocketWaiters<CheckedContinuation<Void, any Error>>

    private struct State {
        var waiters = Waiters()
        var isStarted = false
        var isStopped = false
        /// The sockets the epoll instance knows.
        var registered: Set<Int32> = []
        /// Connections that use the poller: it outlives its client while one is open.
        var connections = 0
        /// The client is gone: the thread ends with the last connection.
        var isOrphaned = false
        /// The jobs of the tasks that prefer the poller, run by the thread between its waits.
        var jobs: [UnownedJob] = []
        /// The thread, once it runs: a job it enqueues itself needs no wake-up.
        var thread: pthread_t?

        /// Whether the caller runs on the thread: what it adds is seen before the thread waits again.
        var isOnThread: Bool { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

        /// Whether the caller is the first to need the thread, and must start it.
        mutating func startsThread() -> Bool {
            defer { isStarted = true }
            return !isStarted
        }
    }

    private let state = Locked(State())
    /// Writing a byte to `wake[1]` interrupts the thread's wait, so that it sees a stop (and, with `poll`, a new
    /// waiter).
    private let wake: (read: Int32, write: Int32)
    /// The epoll instance, with one-shot registrations: a waiter arms its socket from its own thread, and the thread
    /// is woken only by the socket — no interruption, no list rebuilt, however many sockets wait. `nil` with `poll`.
    private let epoll: Int32?

    /// A poller waiting with `backend` (`poll` where `epoll` is not).
    init(backend: SocketWaiting = .platformDefault) throws(RestingError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Self.failure("cannot make the poller's wake pipe") }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        wake = (ends[0], ends[1])
        #if os(Linux)
        guard backend == .epoll else {
            epoll = nil
            return
        }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: UInt64.max))
        guard epoll >= 0, epoll_ctl(epoll, EPOLL_CTL_ADD, wake.read, &event) == 0 else {
            if epoll >= 0 { close(epoll) }
            close(ends[0])
            close(ends[1])
            throw Self.failure("cannot make the poller's epoll instance")
        }
        self.epoll = epoll
        #else
        epoll = nil
        #endif
    }

    deinit {
        close(wake.read)
        close(wake.write)
        if let epoll { close(epoll) }
    }

    /// Whether the thread waits with `poll`, whose list of sockets is rebuilt only when it is interrupted.
    private var polls: Bool { epoll == nil }

    private static let abandoned = TransportError(
        kind: .connectionReset, code: 0, domain: "SocketPoller", message: "the connection is closed")

    private static func failure(_ message: String) -> RestingError {
        .transportFailed(TransportError(kind: .other, code: Int(errno), domain: "errno", message: message))
    }

    /// Waits until `socket` is ready as asked (or in error: the read or write that follows says which); fails at once
    /// when `isAbandoned` says the socket's connection closed before the wait began — ``abandon(_:with:)`` then found
    /// no waiter to fail, and the socket may have no events left to give.
    func wait(
        until readiness: Readiness, socket: Int32, isAbandoned: @escaping @Sendable () -> Bool = { false }
    ) async throws {
        let id = state.withLock { $0.waiters.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Outcome {
                    case failed(RestingError)
                    case startsThread
                    case waits(interrupts: Bool)
                }
                let outcome = state.withLock { state -> Outcome in
                    if state.isStopped { return .failed(.shutDown) }
                    if Task.isCancelled { return .failed(.cancelled) }
                    if isAbandoned() { return .failed(.transportFailed(Self.abandoned)) }
                    state.waiters.add(
                        Waiters.Waiter(id: id, readiness: readiness, continuation: continuation), on: socket)
                    arm(socket, in: &state)
                    if state.startsThread() { return .startsThread }
                    // `poll` sees a new socket only when it rebuilds its list: after the jobs it runs, or woken.
                    return .waits(interrupts: polls && !state.isOnThread)
                }
                switch outcome {
                case .failed(let error): continuation.resume(throwing: error)
                case .startsThread: startThread()
                case .waits(let interrupts): if interrupts { interrupt() }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.remove(id, on: socket)
                if waiter != nil { arm(socket, in: &state) }
                return waiter
            }
            waiter?.resume(throwing: RestingError.cancelled)
        }
    }

    /// Fails every wait on `socket` (its connection is closing) with `error`, and forgets the socket.
    func abandon(_ socket: Int32, with error: RestingError) {
        let waiters = state.withLock { state in
            #if os(Linux)
            if let epoll, state.registered.remove(socket) != nil { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil) }
            #endif
            return state.waiters.takeAll(on: socket)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        if polls { interrupt() }
    }

    /// A connection starts using the poller.
    func attach() { state.withLock { $0.connections += 1 } }

    /// A connection is done with the poller: the last one of an orphaned poller ends its thread.
    func detach() {
        let ends = state.withLock { state in
            state.connections -= 1
            return state.isOrphaned && state.connections == 0
        }
        if ends { stop() }
    }

    /// The client that made the poller is gone: the thread ends once no connection uses it (at once if none does),
    /// so that a WebSocket outlives the last reference to its transport.
    func orphan() {
        let ends = state.withLock { state in
            state.isOrphaned = true
            return state.connections == 0
        }
        if ends { stop() }
    }

    /// Ends the thread; waits still pending fail with ``/RestingCore/RestingError/shutDown``, and the jobs not run yet
    /// (and any enqueued later) run on the global pool.
    func stop() {
        let (waiters, jobs) = state.withLock { state in
            state.isStopped = true
            defer { state.jobs.removeAll() }
            return (state.waiters.takeAll(), state.jobs)
        }
        for waiter in waiters { waiter.resume(throwing: RestingError.shutDown) }
        runElsewhere(jobs)
        interrupt()
    }

    /// Runs `job` on the thread, between its waits; on the global pool once the thread has ended (or could not start).
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        enum Placement {
            case queued(wakes: Bool)
            case starts, elsewhere
        }
        let placement = state.withLock { state -> Placement in
            if state.isStopped { return .elsewhere }
            state.jobs.append(job)
            if state.startsThread() { return .starts }
            return .queued(wakes: !state.isOnThread && state.jobs.count == 1)
        }
        switch placement {
        case .queued(let wakes): if wakes { interrupt() }
        case .starts: startThread()
        case .elsewhere: runElsewhere([job])
        }
    }

    /// Runs `jobs` on the global pool: the thread is gone, and their tasks must still run.
    private func runElsewhere(_ jobs: [UnownedJob]) {
        for job in jobs { globalConcurrentExecutor.enqueue(job) }
    }

    /// Runs the jobs enqueued so far, and those they enqueue, until none is left or a millisecond has passed; `nil`
    /// once stopped (``stop()`` handed the jobs queued then to the global pool), else whether jobs are still queued:
    /// the thread then looks at its sockets without waiting and comes back to them, so that readers of busy sockets,
    /// which yield rather than wait, cannot keep the others unread. `batch` is the loop's: the two arrays trade
    /// places, so that no job is an allocation.
    private func runJobs(_ batch: inout [UnownedJob]) -> Bool? {
        let executor = asUnownedTaskExecutor()
        let end = ContinuousClock.now + .milliseconds(1)
        while true {
            let isStopped = state.withLock { state in
                swap(&batch, &state.jobs)
                return state.isStopped
            }
            if isStopped { return nil }
            if batch.isEmpty { return false }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
            if ContinuousClock.now >= end { return state.withLock { !$0.jobs.isEmpty } }
        }
    }

    /// Asks the OS to report `socket` once for what its waiters wait for (`epoll`; `poll` rebuilds its list instead).
    private func arm(_ socket: Int32, in state: inout State) {
        #if os(Linux)
        guard let epoll else { return }
        let waitedFor = state.waiters.events(on: socket)
        guard waitedFor != 0 else { return }
        let events =
            (waitedFor & Int16(POLLIN) != 0 ? EPOLLIN.rawValue : 0)
            | (waitedFor & Int16(POLLOUT) != 0 ? EPOLLOUT.rawValue : 0)
        var event = epoll_event(
            events: events | EPOLLONESHOT.rawValue | EPOLLRDHUP.rawValue, data: epoll_data_t(u64: UInt64(socket)))
        // A socket closed since it was registered left the epoll set with it: its number may be another's now.
        if !state.registered.contains(socket) || epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) != 0 {
            if epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) != 0 {
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event)
            }
            state.registered.insert(socket)
        }
        #endif
    }

    /// Resumes the waiters `socket`'s readiness (`readable`, `writable`) lets go, and arms it again for the others.
    private func ready(_ socket: Int32, readable: Bool, writable: Bool) {
        let waiters = state.withLock { state in
            let resumed = state.waiters.takeReady(on: socket, readable: readable, writable: writable)
            arm(socket, in: &state)
            return resumed
        }
        for waiter in waiters { waiter.resume() }
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

    /// The thread: runs its jobs and waits for the sockets and the wake pipe, until stopped.
    private func run() {
        state.withLock { $0.thread = pthread_self() }
        #if os(Linux)
        if let epoll { return runEpoll(epoll) }
        #endif
        runPoll()
    }

    #if os(Linux)
    private func runEpoll(_ epoll: Int32) {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var jobs: [UnownedJob] = []
        while let hasJobs = runJobs(&jobs) {
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epoll, $0.baseAddress, Int32($0.count), hasJobs ? 0 : -1)
            }
            guard count > 0 else { continue }
            for event in events[0..<Int(count)] {
                guard event.data.u64 != UInt64.max else {
                    var drain = [UInt8](repeating: 0, count: 64)
                    while read(wake.read, &drain, drain.count) > 0 {}
                    continue
                }
                let problem = event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0
                ready(
                    Int32(truncatingIfNeeded: event.data.u64),
                    readable: problem || event.events & EPOLLIN.rawValue != 0,
                    writable: problem || event.events & EPOLLOUT.rawValue != 0)
            }
        }
    }
    #endif

    private func runPoll() {
        var descriptors: [pollfd] = []
        var jobs: [UnownedJob] = []
        while let hasJobs = runJobs(&jobs) {
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
            state.withLock { state in
                for (socket, events) in state.waiters.sockets {
                    descriptors.append(pollfd(fd: socket, events: events, revents: 0))
                }
            }
            let count = descriptors.withUnsafeMutableBufferPointer {
                poll($0.baseAddress, nfds_t($0.count), hasJobs ? 0 : -1)
            }
            guard count > 0 else { continue }
            if descriptors[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drain, drain.count) > 0 {}
            }
            for descriptor in descriptors.dropFirst() where descriptor.revents != 0 {
                let problem = descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                ready(
                    descriptor.fd, readable: problem || descriptor.revents & Int16(POLLIN) != 0,
                    writable: problem || descriptor.revents & Int16(POLLOUT) != 0)
            }
        }
    }
}
