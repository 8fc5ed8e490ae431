/// Where a ``CurlDriver``'s thread is, as the threads posting to it see it (kept under its mailbox's lock).
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
