/// What other threads post for a ``CurlDriver``, under its mailbox's lock.
struct DriverMail {
    var jobs: [UnownedJob] = []
    /// Tasks to resume on this driver's thread, their transfers run by another (see ``CurlTransfer/home``).
    var wakes: [CurlTransfer.Waiter] = []
    /// Transfers to start, each with the task that waits for it (attached on the driver thread: the caller's
    /// thread never touches a lifecycle that a cancellation may be changing here).
    var submissions: [(CurlTransfer, CurlTransfer.Waiter)] = []
    var cancellations: [CurlTransfer] = []
    var unpauses: [CurlTransfer] = []
    /// Uploads whose producer has bytes again.
    var uploadResumes: [CurlTransfer] = []
    /// Called once the pass that takes them ends.
    var passEnds: [@Sendable () -> Void] = []
    /// Cancel every transfer in flight (a shutdown's grace period has passed).
    var cancelsEverything = false

    var isEmpty: Bool {
        jobs.isEmpty && wakes.isEmpty && submissions.isEmpty && cancellations.isEmpty && unpauses.isEmpty
            && uploadResumes.isEmpty
            && passEnds.isEmpty
            && !cancelsEverything
    }

    mutating func removeAll() {
        jobs.removeAll(keepingCapacity: true)
        wakes.removeAll(keepingCapacity: true)
        submissions.removeAll(keepingCapacity: true)
        cancellations.removeAll(keepingCapacity: true)
        unpauses.removeAll(keepingCapacity: true)
        uploadResumes.removeAll(keepingCapacity: true)
        passEnds.removeAll(keepingCapacity: true)
        cancelsEverything = false
    }
}

/// Where the thread is, as the threads posting to it see it.
enum DriverPhase: Equatable {
    /// Taking mail; asleep while it waits in `curl_multi_poll`, when a sender must wake it.
    case running(isAsleep: Bool)
    /// Asked to stop: it still takes mail, and ends once its transfers have and no mail is left.
    case stopping(isAsleep: Bool)
    /// Ended, its handles released: mail is refused.
    case stopped

    /// Marks the thread awake; whether it was asleep.
    mutating func wake() -> Bool {
        switch self {
        case .running(true): self = .running(isAsleep: false)
        case .stopping(true): self = .stopping(isAsleep: false)
        case .running(false), .stopping(false), .stopped: return false
        }
        return true
    }

    mutating func fallAsleep() {
        switch self {
        case .running: self = .running(isAsleep: true)
        case .stopping: self = .stopping(isAsleep: true)
        case .stopped: break
        }
    }

    /// Asked to stop, asleep or not.
    mutating func askToStop() {
        if case .running(let isAsleep) = self { self = .stopping(isAsleep: isAsleep) }
    }

    var isStopping: Bool {
        if case .stopping = self { true } else { false }
    }

    var hasStopped: Bool {
        if case .stopped = self { true } else { false }
    }
}
