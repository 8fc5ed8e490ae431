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
