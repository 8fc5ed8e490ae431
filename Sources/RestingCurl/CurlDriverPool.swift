import Dispatch
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``CurlClient``'s drivers — one thread, multi handle and connection cache each — and the `TaskExecutor` that
/// spreads tasks over them.
///
/// A task stays on the driver it runs on: a job enqueued from a driver's own thread (a continuation its transfer
/// resumed, a promise created by a request loop) runs on that thread, and a transfer submitted there starts there,
/// so a call's pipeline and its transfer share one thread without a hop. Work that comes from outside — a task
/// created on the main thread or the global pool, a call from a task that prefers no executor — goes to the least
/// loaded driver (queued mail plus transfers in flight), the first on a tie: sequential calls from one task keep
/// using one driver and so one connection, while a burst of calls spreads over all of them.
package final class CurlDriverPool: TaskExecutor, Sendable {
    /// Never empty; fixed for the pool's life.
    let drivers: [CurlDriver]
    /// Which driver holds each HTTP/2 origin's connection; `nil` when transfers are spread whatever their origin
    /// (one driver, or ``CurlConfiguration/spreadsHTTP2Origins``).
    let affinity: OriginAffinity<CurlDriver>?

    init(configuration: CurlConfiguration) throws(RestingError) {
        let shares = ConnectionShares.split(
            drivers: configuration.driverCount, perHost: configuration.maximumConnectionsPerHost,
            total: configuration.maximumConnections)
        // A driver whose thread never started frees its multi handle as it is released.
        drivers = try shares.map { share throws(RestingError) in
            try CurlDriver(configuration: configuration, shares: share)
        }
        affinity =
            drivers.count > 1 && !configuration.spreadsHTTP2Origins
            ? OriginAffinity(httpVersion: configuration.httpVersion) : nil
        // Started only now that the pool exists: each driver holds it, as the executor its jobs run on, until the
        // driver's thread ends.
        for driver in drivers {
            do {
                try driver.start(in: self)
            } catch {
                stop()
                throw error
            }
        }
    }

    /// The driver a new transfer to `url` goes to: the one holding its origin's HTTP/2 connection, else the
    /// caller's own when it runs on one of this pool's threads, else the least loaded. `affinityKey` is set while the
    /// origin's protocol is not known yet: the transfer then tells ``affinity`` what its response came over. `home`
    /// is where the waiting task resumes when the transfer runs on an origin's driver: its own, or another than that.
    func driver(for url: URL) -> (driver: CurlDriver, affinityKey: String?, home: CurlDriver?) {
        guard let affinity, let key = affinity.key(for: url) else { return (driverHere(), nil, nil) }
        let here = CurlDriver.current(in: self)
        let placed = affinity.driver(for: key) { here ?? leastLoaded() }
        guard let driver = placed.driver else { return (driverHere(), nil, nil) }
        // The caller resumes on its own driver — or, running on the connection's or on none, on the least loaded of
        // the others: the connection's thread then does the origin's I/O, and the others the calls' pipelines.
        let home = here.flatMap { $0 === driver ? nil : $0 } ?? leastLoaded(excluding: driver)
        return (driver, placed.learns ? key : nil, home)
    }

    private func driverHere() -> CurlDriver {
        CurlDriver.current(in: self) ?? leastLoaded()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let current = CurlDriver.current(in: self) {
            current.enqueueLocally(job)
        } else if !leastLoaded().post(job) {
            // The drivers have stopped: run late jobs elsewhere rather than lose their tasks.
            DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Lets every driver finish its transfers and end its thread.
    func stop() {
        for driver in drivers { driver.stop() }
    }

    /// Asks every driver to cancel the transfers it has in flight.
    func cancelEverything() {
        for driver in drivers { driver.cancelEverything() }
    }

    /// Returns once every driver's thread has stopped and released its handles and connections.
    func whenAllStopped() async {
        for driver in drivers {
            await withCheckedContinuation { continuation in driver.whenStopped { continuation.resume() } }
        }
    }

    /// How many drivers' threads are still running.
    package var runningDrivers: Int { drivers.count { !$0.hasStopped } }

    /// How many transfers each driver has started, in driver order.
    package var startedTransfers: [Int] { drivers.map(\.startedTransfers) }

    /// Waits until every driver has finished the pass it is in: whatever a settled call's transfer still had to
    /// release on its thread has been released.
    func afterCurrentPasses() async {
        for driver in drivers {
            await withCheckedContinuation { continuation in
                driver.afterCurrentPass { continuation.resume() }
            }
        }
    }

    private func leastLoaded(excluding excluded: CurlDriver) -> CurlDriver? {
        drivers.lazy.filter { $0 !== excluded }.min { $0.load < $1.load }
    }

    private func leastLoaded() -> CurlDriver {
        var chosen = drivers[0]
        var lowest = chosen.load
        for driver in drivers.dropFirst() where lowest > 0 {
            let load = driver.load
            if load < lowest {
                chosen = driver
                lowest = load
            }
        }
        return chosen
    }
}
