import CCurl
import RestingCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread that drives one libcurl multi handle, and runs the jobs its ``CurlDriverPool`` gives it.
///
/// Only this thread calls libcurl on its handles (but for `curl_multi_wakeup`, which is thread-safe). A task
/// on the pool's executor runs between libcurl calls: when its transfer finishes, its continuation is resumed
/// right here, its next request goes straight to `curl_multi_add_handle`, and the thread sleeps in
/// `curl_multi_poll` only when nothing is runnable — the scheduling of a plain C loop, with tasks in it.
/// (The Performance article of the DocC catalogue measures why this matters.)
///
/// Other threads talk to it through one locked mailbox: jobs, submitted transfers, cancellations. A sender
/// wakes the thread only if it is asleep (its phase is set and read under the same lock, so no
/// wake-up is lost).
final class CurlDriver: @unchecked Sendable {
    private struct Mailbox {
        var mail = DriverMail()
        var phase = DriverPhase.running(isAsleep: false)
        /// Called once the thread has released everything and is about to end.
        var stopWaiters: [@Sendable () -> Void] = []
    }

    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlConfiguration
    private let mailbox = Locked(Mailbox())
    /// Jobs and transfers posted from other threads and not yet handled: with ``transfersInFlight``, the load the
    /// pool spreads new work by.
    private let pendingMail = Atomic<Int>(0)
    /// How many transfers are ``active``, readable from any thread.
    private let transfersInFlight = Atomic<Int>(0)
    private let startedCount = Atomic<Int>(0)

    /// The pool whose executor the jobs run on; set before the thread starts, released by the thread as it ends.
    private var pool: CurlDriverPool?
    private var executor: UnownedTaskExecutor?
    private var hasStarted = false

    // Touched by the driver thread only.
    /// The mail being handled: swapped with the mailbox's, so that neither side allocates arrays per pass.
    private var delivered = DriverMail()
    private var localJobs: [UnownedJob] = []
    private var idleHandles: [EasyHandle] = []
    /// The transfers started and not yet finished, each at its ``CurlTransfer/activeIndex``: what a shutdown's
    /// deadline cancels, and the driver's share of the load.
    private var active: [CurlTransfer] = []
    /// The origins whose URLs libcurl and Foundation were found to read alike.
    private var urlAgreement = URLAgreement()
    /// Streamed transfers holding body bytes to hand to their readers once the current pass ends.
    private var pendingFlushes: [CurlTransfer] = []
    /// Transfers whose response is whole while their request body may still be open: ended once the pass is over.
    private var responsesEnded: [CurlTransfer] = []

    /// Marks the driver's own thread, so that `enqueue` can tell it needs no lock and no wake-up.
    private static let sharedThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// ``sharedThreadKey``, read once: `enqueue` asks for it on every job, and a static's lazy initialiser costs
    /// a `swift_once` check each time.
    private let threadKey = CurlDriver.sharedThreadKey

    /// A driver whose multi handle keeps to `shares` of the client's connection limits; its thread starts with
    /// ``start(in:)``.
    init(configuration: CurlConfiguration, shares: ConnectionShares) throws(RestingError) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else {
            throw .transportFailed(
                TransportError(kind: .other, code: 0, domain: CurlError.domain, message: "curl_multi_init failed"))
        }
        self.multi = multi
        self.configuration = configuration
        _ = rk_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, shares.perHost)
        _ = rk_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, shares.total)
        _ = rk_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        if let idle = configuration.connections.maximumIdleConnections {
            _ = rk_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, idle))
        }
    }

    /// A driver whose thread never started frees its handle here; a started one, as its thread ends.
    deinit {
        if !hasStarted { curl_multi_cleanup(multi) }
    }

    /// Starts the thread, which runs jobs on `pool`'s executor and keeps `pool` until it ends.
    func start(in pool: CurlDriverPool) throws(RestingError) {
        self.pool = pool
        executor = pool.asUnownedTaskExecutor()
        hasStarted = true
        // The thread keeps the driver alive until its loop ends.
        let context = Unmanaged.passRetained(self)
        let started = rk_start_thread(
            Self.threadName,
            { context in
                context.map { Unmanaged<CurlDriver>.fromOpaque($0).takeRetainedValue().run() }
            }, context.toOpaque())
        guard started == 0 else {
            context.release()
            self.pool = nil
            hasStarted = false
            throw .transportFailed(
                TransportError(
                    kind: .other, code: Int(started), domain: CurlError.domain,
                    message: "cannot start the driver thread: \(String(cString: strerror(started)))"))
        }
    }

    private var isCurrentThread: Bool {
        pthread_getspecific(threadKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// The driver of `pool` whose thread calls this, if any.
    static func current(in pool: CurlDriverPool) -> CurlDriver? {
        guard let raw = pthread_getspecific(sharedThreadKey) else { return nil }
        // Only the driver's own thread reads its `pool`, and only this thread has the key set to it.
        return Unmanaged<CurlDriver>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.pool === pool ? $0 : nil }
    }

    // MARK: From any thread

    /// Mail waiting plus transfers in flight: how busy the driver is, as a hint (read without a lock).
    var load: Int { pendingMail.load(ordering: .relaxed) + transfersInFlight.load(ordering: .relaxed) }

    /// Transfers started so far.
    var startedTransfers: Int { startedCount.load(ordering: .relaxed) }

    /// Whether the thread has ended its loop (or never started).
    var hasStopped: Bool { !hasStarted || mailbox.withLock { $0.phase.hasStopped } }

    /// Hands a job from another thread to the driver; `false` once the driver has stopped.
    func post(_ job: UnownedJob) -> Bool {
        post { $0.mail.jobs.append(job) }
    }

    /// Starts `transfer` for the task `waiter` resumes (directly when called on the driver thread). Never inlined into
    /// the task that waits for the transfer, whose frame it would enlarge.
    @inline(never)
    func submit(_ transfer: CurlTransfer, waiter: CurlTransfer.Waiter) {
        if isCurrentThread {
            start(transfer, waiter: waiter)
        } else if !post({ $0.mail.submissions.append((transfer, waiter)) }) {
            // The driver has stopped (the client was shut down): the transfer never reached it.
            transfer.resume(waiter, with: .failure(.shutDown))
        }
    }

    /// Resumes `waiter` on the driver's thread (at once, here, if the driver has stopped).
    func wake(_ waiter: CurlTransfer.Waiter) {
        if !post(countsAsLoad: false, { $0.mail.wakes.append(waiter) }) { waiter.resume() }
    }

    /// Calls `body` on the driver's thread once its current pass ends (at once if the driver has stopped).
    func afterCurrentPass(_ body: @escaping @Sendable () -> Void) {
        if !post({ $0.mail.passEnds.append(body) }) { body() }
    }

    /// Asks the driver to cancel `transfer`, whatever state it is in.
    func cancel(_ transfer: CurlTransfer) {
        _ = post(countsAsLoad: false) { $0.mail.cancellations.append(transfer) }
    }

    /// Asks the driver to cancel every transfer it has in flight; each fails (or its body ends) with `cancelled`.
    func cancelEverything() {
        _ = post(countsAsLoad: false) { $0.mail.cancelsEverything = true }
    }

    /// Calls `body` once the thread has stopped and released its handles and connections (at once if it has).
    func whenStopped(_ body: @escaping @Sendable () -> Void) {
        let hasStopped =
            !hasStarted
            || mailbox.withLock { mailbox in
                guard !mailbox.phase.hasStopped else { return true }
                mailbox.stopWaiters.append(body)
                return false
            }
        if hasStopped { body() }
    }

    /// Asks the driver to let a paused streamed transfer receive again.
    func unpause(_ transfer: CurlTransfer) {
        _ = post(countsAsLoad: false) { $0.mail.unpauses.append(transfer) }
    }

    /// Asks the driver to let an upload paused for its producer send again.
    func resumeUpload(_ transfer: CurlTransfer) {
        _ = post(countsAsLoad: false) { $0.mail.uploadResumes.append(transfer) }
    }

    /// Lets the thread finish its transfers and exit.
    func stop() {
        _ = post { $0.phase.askToStop() }
    }

    /// Puts a message in the mailbox and wakes the driver if it sleeps; `false` once the driver has stopped.
    ///
    /// The wake-up happens under the lock: the driver marks itself stopped under the same lock before it
    /// frees the multi handle, so a wake-up can never reach a freed handle. (`curl_multi_wakeup` is
    /// thread-safe and only writes to a socket.)
    private func post(countsAsLoad: Bool = true, _ message: (inout Mailbox) -> Void) -> Bool {
        mailbox.withLock { mailbox in
            guard !mailbox.phase.hasStopped else { return false }
            message(&mailbox)
            if countsAsLoad { pendingMail.add(1, ordering: .relaxed) }
            if mailbox.phase.wake() { curl_multi_wakeup(multi) }
            return true
        }
    }

    // MARK: The driver thread

    /// The driver thread's name in debuggers, `top -H` and crash reports (Linux allows 15 characters).
    static let threadName = "RestingKit.curl"

    private func run() {
        pthread_setspecific(threadKey, Unmanaged.passUnretained(self).toOpaque())
        defer {
            pthread_setspecific(threadKey, nil)
            executor = nil
            pool = nil
        }
        while true {
            let isStopping = processMail()
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            flushStreams()
            var done: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while rk_multi_info_read(multi, &done, &result) != 0 {
                if let done { finish(done, result) }
            }
            if !responsesEnded.isEmpty { endTransfersOfEndedResponses() }
            if !localJobs.isEmpty { continue }
            if isStopping, active.isEmpty, shutDownIfIdle() { return }
            sleepUntilWoken()
        }
    }

    /// Runs the jobs and handles the transfers posted since the last look; returns whether to stop.
    private func processMail() -> Bool {
        let isStopping = mailbox.withLock { mailbox in
            swap(&mailbox.mail, &delivered)
            return mailbox.phase.isStopping
        }
        for job in delivered.jobs { run(job) }
        // Their jobs land in the local list, and run next.
        for waiter in delivered.wakes { waiter.resume() }
        runLocalJobs()
        for (transfer, waiter) in delivered.submissions { start(transfer, waiter: waiter) }
        for transfer in delivered.cancellations { cancelOnDriver(transfer) }
        for transfer in delivered.unpauses { unpauseOnDriver(transfer) }
        for transfer in delivered.uploadResumes { resumeUploadOnDriver(transfer) }
        if delivered.cancelsEverything {
            for transfer in active { cancelOnDriver(transfer) }
        }
        // Counted off only now, once the jobs have submitted their transfers: the load never looks lower than it is.
        let handled = delivered.jobs.count + delivered.submissions.count
        if handled > 0 { pendingMail.subtract(handled, ordering: .relaxed) }
        // Told only once this mail has let go of its transfers: a cancelled transfer's last reference may be here,
        // and whoever waits for the pass's end then finds it freed.
        let passEnds = delivered.passEnds
        delivered.removeAll()
        for body in passEnds { body() }
        return isStopping
    }

    private func runLocalJobs() {
        while !localJobs.isEmpty {
            let jobs = localJobs
            localJobs.removeAll(keepingCapacity: true)
            for job in jobs { run(job) }
        }
    }

    /// Runs `job` on the pool's executor: a task that prefers it then needs no hop to continue here. (`executor` is
    /// set before the thread starts and cleared as its loop ends: never `nil` while jobs run.)
    private func run(_ job: UnownedJob) {
        if let executor { job.runSynchronously(on: executor) }
    }

    /// Takes a job enqueued on the driver's own thread: it runs in this pass, without the mailbox.
    func enqueueLocally(_ job: UnownedJob) {
        localJobs.append(job)
    }

    private func sleepUntilWoken() {
        let isIdle = active.isEmpty
        let sleeps = mailbox.withLock { mailbox in
            // A stop posted during this pass — by a job on this very thread, which needs no wake-up — ends an idle
            // driver now, not after the poll's timeout.
            guard mailbox.mail.isEmpty, !(mailbox.phase.isStopping && isIdle) else { return false }
            mailbox.phase.fallAsleep()
            return true
        }
        guard sleeps else { return }
        var timeout = -1
        curl_multi_timeout(multi, &timeout)
        curl_multi_poll(multi, nil, 0, Int32(timeout < 0 ? 1000 : min(timeout, 1000)), nil)
        mailbox.withLock { _ = $0.phase.wake() }
    }

    /// Stops taking mail if nothing arrived since the last look; late jobs then run elsewhere.
    private func shutDownIfIdle() -> Bool {
        let waiters = mailbox.withLock { mailbox -> [@Sendable () -> Void]? in
            guard mailbox.mail.isEmpty else { return nil }
            mailbox.phase = .stopped
            defer { mailbox.stopWaiters = [] }
            return mailbox.stopWaiters
        }
        guard let waiters else { return false }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        // No longer a thread of the pool: a task a waiter resumes (one awaiting the shutdown on the pool's executor)
        // must go to a driver still running, or to the global pool — a job kept here would never run.
        pthread_setspecific(threadKey, nil)
        for waiter in waiters { waiter() }
        return true
    }

    private func start(_ transfer: CurlTransfer, waiter: CurlTransfer.Waiter) {
        transfer.lifecycle.attach(waiter)
        switch transfer.lifecycle.start() {
        case .start:
            break
        case .failCancelled(let waiter):
            return transfer.resume(waiter, with: .failure(.cancelled))
        default:
            return
        }
        let handle: EasyHandle
        if let idle = idleHandles.popLast() {
            handle = idle
        } else {
            do {
                handle = try EasyHandle.make(for: configuration)
            } catch {
                if let waiter = transfer.lifecycle.failBeforeStart() { transfer.resume(waiter, with: .failure(error)) }
                return
            }
        }
        // One retain per started transfer, for libcurl's pointers; released in `release(_:)` only.
        let userdata = Unmanaged.passRetained(transfer).toOpaque()
        do {
            try urlAgreement.check(transfer.request.url)
            try transfer.configure(handle, userdata: userdata)
            let added = curl_multi_add_handle(multi, handle.raw)
            guard added == CURLM_OK else {
                throw RestingError.transportFailed(
                    TransportError(
                        kind: .other, code: Int(added.rawValue), domain: "CURLMcode",
                        message: String(cString: curl_multi_strerror(added))))
            }
            track(transfer)
            startedCount.add(1, ordering: .relaxed)
        } catch {
            let waiter = transfer.lifecycle.failBeforeStart()
            release(transfer)
            waiter.map { transfer.resume($0, with: .failure(error as? RestingError ?? .cancelled)) }
        }
    }

    private func cancelOnDriver(_ transfer: CurlTransfer) {
        let action = transfer.lifecycle.cancel()
        switch action {
        case .removeHandleAndFailCancelled, .removeHandleAndCancelStream: break
        default: return
        }
        // Removing a transfer midway closes its connection: it cannot carry another request.
        if let handle = transfer.handle { curl_multi_remove_handle(multi, handle.raw) }
        untrack(transfer)
        if case .removeHandleAndCancelStream(let streamed) = action {
            transfer.endBody(of: streamed, CURLE_OK, failure: .cancelled)
            release(transfer)
        } else if case .removeHandleAndFailCancelled(let waiter) = action {
            release(transfer)
            transfer.resume(waiter, with: .failure(.cancelled))
        }
    }

    private func unpauseOnDriver(_ transfer: CurlTransfer) {
        guard let streamed = transfer.lifecycle.feed, streamed.isPaused, let handle = transfer.handle else { return }
        streamed.isPaused = false
        // The bytes gathered before the pause go first; if the reader's buffer is full again, stay paused.
        guard transfer.flushPendingBody(of: streamed) else { return }
        // May call the write callback at once with what libcurl held back, which may pause again.
        curl_easy_pause(handle.raw, transfer.pausedDirections)
    }

    private func resumeUploadOnDriver(_ transfer: CurlTransfer) {
        guard let handle = transfer.handle, transfer.upload.resume() else { return }
        // May call the read callback at once, which pauses again if the producer has nothing after all.
        curl_easy_pause(handle.raw, transfer.pausedDirections)
    }

    /// Called from a write callback: flush `transfer` when this pass of `curl_multi_perform` ends.
    func flushAfterPass(_ transfer: CurlTransfer) {
        pendingFlushes.append(transfer)
    }

    /// Called from a callback: end `transfer` once this pass is over, its response being whole.
    func endAfterPass(_ transfer: CurlTransfer) {
        responsesEnded.append(transfer)
    }

    /// Ends the transfers whose response is whole and which libcurl has not finished: their request body never
    /// ended (its producer waits for more of the response, say). The rest of the body is not sent — its reader is
    /// closed, which stops its producer — and removing the transfer closes its connection, whose request is cut.
    private func endTransfersOfEndedResponses() {
        let transfers = responsesEnded
        responsesEnded.removeAll(keepingCapacity: true)
        for transfer in transfers where transfer.activeIndex >= 0 {
            if let handle = transfer.handle { finish(handle.raw, CURLE_OK) }
        }
    }

    /// Hands each streamed transfer's gathered bytes to its reader; pauses those whose reader fell behind.
    private func flushStreams() {
        guard !pendingFlushes.isEmpty else { return }
        let transfers = pendingFlushes
        pendingFlushes.removeAll(keepingCapacity: true)
        for transfer in transfers {
            guard let streamed = transfer.lifecycle.feed, let handle = transfer.handle else { continue }
            streamed.isAwaitingFlush = false
            if !transfer.flushPendingBody(of: streamed), streamed.isPaused {
                curl_easy_pause(handle.raw, transfer.pausedDirections)
            }
        }
    }

    private func finish(_ raw: UnsafeMutableRawPointer, _ code: CURLcode) {
        var userdata: UnsafeMutableRawPointer?
        guard rk_easy_getinfo_pointer(raw, CURLINFO_PRIVATE, &userdata) == CURLE_OK, let userdata else { return }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        // Only a transfer on the client's HTTP version says what the origin speaks: not one that asked for its own,
        // nor one with trailers, sent over HTTP/1.1 whatever the origin speaks.
        if let key = transfer.affinityKey, transfer.request.attributes.httpVersion == nil,
            transfer.request.body.trailers == nil, let version = transfer.handle?.long(CURLINFO_HTTP_VERSION),
            version > 0
        {
            // CURL_HTTP_VERSION_2_0 and later multiplex; 1.0 and 1.1 do not.
            pool?.affinity?.learn(key, multiplexed: version >= CURL_HTTP_VERSION_2_0)
        }
        switch transfer.lifecycle.complete() {
        case .finishStream(let streamed):
            curl_multi_remove_handle(multi, raw)
            untrack(transfer)
            transfer.endBody(of: streamed, code)
            release(transfer)
        case .finish(let waiter):
            curl_multi_remove_handle(multi, raw)
            untrack(transfer)
            let outcome = transfer.outcome(code)
            release(transfer)
            transfer.resume(waiter, with: outcome)
        default:
            return
        }
    }

    private func track(_ transfer: CurlTransfer) {
        transfer.activeIndex = active.count
        active.append(transfer)
        transfersInFlight.store(active.count, ordering: .relaxed)
    }

    /// Swaps the last transfer into `transfer`'s place: O(1), and order does not matter.
    private func untrack(_ transfer: CurlTransfer) {
        let last = active.removeLast()
        if last !== transfer {
            active[transfer.activeIndex] = last
            last.activeIndex = transfer.activeIndex
        }
        transfer.activeIndex = -1
        transfersInFlight.store(active.count, ordering: .relaxed)
    }

    /// Gives the handle back to the pool and drops libcurl's retain of the transfer.
    private func release(_ transfer: CurlTransfer) {
        // A handle that sent trailers is not reused: libcurl keeps an upload's trailer state on its handle, and a
        // later transfer on a handle whose trailers went wrong freed their buffer again (7.88).
        if let handle = transfer.detachHandle(), !handle.sendsTrailers {
            handle.prepareForReuse()
            idleHandles.append(handle)
        }
        Unmanaged.passUnretained(transfer).release()
    }
}
