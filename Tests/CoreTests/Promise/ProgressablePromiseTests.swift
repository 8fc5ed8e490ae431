import Dispatch
import Foundation
import RestingTestSupport
import Testing

@testable import RestingCore

/// A `TaskExecutor` on a serial dispatch queue that can tell whether code runs on it.
final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "test.queue-executor")
    private let key = DispatchSpecificKey<Bool>()

    init() { queue.setSpecific(key: key, value: true) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

@Suite("Progressable promises")
struct ProgressablePromiseTests {
    @Test("the work starts at once, before anyone awaits")
    func startsAtOnce() async throws {
        let started = Collector<Bool>()
        let promise = ProgressablePromise { _ in
            started.append(true)
            return 1
        }
        await started.wait { !$0.isEmpty }
        #expect(try await promise.value == 1)
    }

    @Test("then, map, get and done chain in order, PromiseKit style")
    func chaining() async throws {
        let log = Collector<String>()
        let finished = ProgressablePromise(value: 2)
            .then { value in ProgressablePromise(value: value * 10) }
            .map { "\($0)" }
            .get { log.append("get \($0)") }
            .done { log.append("done \($0)") }
        try await finished.value
        #expect(log.all == ["get 20", "done 20"])
    }

    @Test("catch receives the error, and finally runs after it")
    func catchAndFinally() async {
        let log = Collector<String>()
        struct Boom: Error {}
        let finalizer = ProgressablePromise<Int> { _ in throw Boom() }
            .map { $0 + 1 }
            .done { _ in log.append("done") }
            .catch { error in log.append("catch \(error is Boom)") }
            .finally { log.append("finally") }
        await finalizer.wait()
        #expect(log.all == ["catch true", "finally"])
    }

    @Test("recover replaces an error with a value or another promise; ensure runs either way")
    func recoverAndEnsure() async throws {
        struct Boom: Error {}
        let log = Collector<String>()
        let failing = ProgressablePromise<Int> { _ in throw Boom() }
        let byValue = failing.recover { _ in 7 }.ensure { log.append("ensure") }
        #expect(try await byValue.value == 7)
        let byPromise = failing.recover { _ in ProgressablePromise(value: 8) }
        #expect(try await byPromise.value == 8)
        let rethrown = failing.recover { error throws -> Int in throw error }.ensure { log.append("ensure") }
        await #expect(throws: Boom.self) { try await rethrown.value }
        #expect(log.all == ["ensure", "ensure"])
    }

    @Test("progress flows through every chained promise, and the last report always arrives")
    func progressFlowsThroughChains() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let source = ProgressablePromise<Int> { progress in
            for sent in stride(from: 0, through: 100, by: 10) {
                progress(TransferProgress(bytesSent: Int64(sent), totalBytesToSend: 100))
            }
            for await _ in gate.stream { break }
            return 1
        }
        let reports = Collector<Double>()
        let chained = source.map { $0 + 1 }.get { _ in }.recover { _ in 0 }
            .progress { reports.append($0.fractionCompleted) }
        await reports.wait { $0.last == 1.0 }
        gate.continuation.yield()
        #expect(try await chained.value == 2)
        #expect(reports.all == reports.all.sorted(), "reports arrive in order")
    }

    @Test("progress of a promise returned inside then flows on to the outer promise")
    func progressOfInnerPromises() async throws {
        let reports = Collector<Int64>()
        let outer = ProgressablePromise(value: 1).then { _ in
            ProgressablePromise<Int> { progress in
                progress(TransferProgress(bytesReceived: 42, totalBytesToReceive: 42))
                return 2
            }
        }.progress { reports.append($0.bytesReceived) }
        #expect(try await outer.value == 2)
        await reports.wait { $0.contains(42) }
    }

    @Test("a progress handler added late starts from the latest report")
    func lateProgressHandlers() async throws {
        let promise = ProgressablePromise<Int> { progress in
            progress(TransferProgress(bytesReceived: 5, totalBytesToReceive: 10))
            return 1
        }
        _ = try await promise.value
        let reports = Collector<Int64>()
        promise.progress { reports.append($0.bytesReceived) }
        await reports.wait { $0 == [5] }
    }

    @Test("cancel() fails the promise and everything chained on it with .cancelled")
    func cancelPropagates() async {
        let promise = ProgressablePromise<Int> { _ in
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        let chained = promise.map { $0 + 1 }
        promise.cancel()
        for outcome in [await Result { try await promise.value }, await Result { try await chained.value }] {
            guard case .cancelled = outcome.failure else {
                Issue.record("expected .cancelled, got \(outcome)")
                continue
            }
        }
    }

    @Test("cancelling a derived promise cancels the call it derives from")
    func cancellingADerivedPromise() async {
        let promise = ProgressablePromise<Int> { _ in
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        let derived = promise.map { $0 * 2 }
        derived.cancel()
        guard case .cancelled = await Result(catching: { try await promise.value }).failure else {
            Issue.record("the source call must be cancelled too")
            return
        }
        #expect(promise.isCancelled)
    }

    @Test("handlers run on the promise's preferred executor")
    func handlersRunOnThePreferredExecutor() async throws {
        let executor = QueueExecutor()
        let places = Collector<String>()
        let finalizer = ProgressablePromise(executorPreference: executor) { _ in
            places.append(executor.isCurrent ? "operation on executor" : "operation elsewhere")
            return 1
        }
        .map { value in
            places.append(executor.isCurrent ? "map on executor" : "map elsewhere")
            return value
        }
        .done { _ in places.append(executor.isCurrent ? "done on executor" : "done elsewhere") }
        .catch { _ in }
        await finalizer.wait()
        #expect(places.all == ["operation on executor", "map on executor", "done on executor"])
    }

    @Test("without a preferred executor, handlers run on the global executor, off the main thread")
    func handlersRunOffTheMainThread() async throws {
        let onMain = try await ProgressablePromise(value: 1).map { _ in Thread.isMainThread }.value
        #expect(!onMain)
    }
}
