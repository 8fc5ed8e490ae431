/// The tasks waiting on a ``SocketPoller``, by socket: what a readiness report, an abandoned socket or a cancelled
/// wait touches is that socket's few waiters, never a scan of every socket's — ten thousand idle WebSockets wait
/// here, and each message on one of them is a report.
struct SocketWaiters<Continuation> {
    /// One task's wait: what for, and how to resume it.
    struct Waiter {
        let id: UInt64
        let readiness: SocketPoller.Readiness
        let continuation: Continuation
    }

    private var bySocket: [Int32: [Waiter]] = [:]
    private var nextID: UInt64 = 0

    /// An identity for a wait about to begin, unique in this table.
    mutating func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    mutating func add(_ waiter: Waiter, on socket: Int32) {
        bySocket[socket, default: []].append(waiter)
    }

    /// Takes out the wait `id` on `socket` (it was cancelled); `nil` when it already ended.
    mutating func remove(_ id: UInt64, on socket: Int32) -> Continuation? {
        take(on: socket) { $0.id == id }.first
    }

    /// Takes out the waits `socket`'s readiness lets go.
    mutating func takeReady(on socket: Int32, readable: Bool, writable: Bool) -> Taken {
        take(on: socket) { $0.readiness == .readable ? readable : writable }
    }

    /// Takes out every wait on `socket`, and forgets it.
    mutating func takeAll(on socket: Int32) -> [Continuation] {
        bySocket.removeValue(forKey: socket)?.map(\.continuation) ?? []
    }

    /// Takes out every wait.
    mutating func takeAll() -> [Continuation] {
        defer { bySocket.removeAll() }
        return bySocket.values.flatMap { $0.map(\.continuation) }
    }

    /// What `socket`'s waiters wait for, as `poll(2)`'s events (`POLLIN`, `POLLOUT`); 0 when none waits.
    func events(on socket: Int32) -> Int16 {
        bySocket[socket].map(Self.events(of:)) ?? 0
    }

    /// Every socket waited on, with what for (the `poll(2)` loop's list).
    var sockets: some Sequence<(socket: Int32, events: Int16)> {
        bySocket.lazy.map { socket, waiters in (socket, Self.events(of: waiters)) }.filter { $0.events != 0 }
    }

    private static func events(of waiters: [Waiter]) -> Int16 {
        waiters.reduce(0) { $0 | $1.readiness.events }
    }

    /// The waits taken out at once: most often one, held without an array, since a readiness report is one a message.
    struct Taken: Sequence {
        private(set) var first: Continuation?
        private var others: [Continuation] = []

        mutating func append(_ continuation: Continuation) {
            if first == nil { first = continuation } else { others.append(continuation) }
        }

        /// Each, in the order they were taken.
        struct Iterator: IteratorProtocol {
            var first: Continuation?
            var others: IndexingIterator<[Continuation]>

            mutating func next() -> Continuation? {
                guard let taken = first else { return others.next() }
                first = nil
                return taken
            }
        }

        func makeIterator() -> Iterator { Iterator(first: first, others: others.makeIterator()) }
    }

    /// Takes out `socket`'s waits that `isTaken` picks, in place: the socket's entry stays, emptied, until it is
    /// forgotten, so that its next wait — one a message — allocates nothing.
    private mutating func take(on socket: Int32, where isTaken: (Waiter) -> Bool) -> Taken {
        var taken = Taken()
        guard let index = bySocket.index(forKey: socket) else { return taken }
        bySocket.values[index].removeAll { waiter in
            guard isTaken(waiter) else { return false }
            taken.append(waiter.continuation)
            return true
        }
        return taken
    }
}
