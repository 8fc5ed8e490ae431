/// A running call whose result can be awaited or handled with chained handlers, and which reports progress.
///
/// The work starts as soon as the promise exists. Await it, or chain handlers the PromiseKit way:
///
/// ```swift
/// let post = try await client.perform(request).value.body
///
/// client.perform(request)
///     .progress { print("\(Int($0.fractionCompleted * 100))%") }
///     .map(\.body)
///     .done { post in print("created \(post.id)") }
///     .catch { error in print("failed: \(error)") }
/// ```
///
/// **Where handlers run.** `then`, `map`, `get`, `done`, `catch`, `recover`, `ensure` and `finally` run in a task
/// of their own, on the executor the promise prefers — the client's transport executor when it has one —
/// or else on the global concurrent executor; never on the main actor (hop with `await MainActor.run`).
/// `progress` handlers run one at a time, in order, in a task of their own; when a handler is slower than the
/// transfer, intermediate reports are skipped, but the last one is always delivered (possibly after the
/// promise has settled).
///
/// **Progress** flows through every promise derived by chaining, including the promises returned inside
/// `then` and `recover`.
///
/// **Cancellation.** ``cancel()`` — or cancelling a task that awaits ``value`` or a derived promise — cancels
/// the underlying transfer, and the promise fails with ``RestingError/cancelled``.
public final class ProgressablePromise<T: Sendable>: Sendable {
    private let task: Task<T, any Error>
    package let progressChannel: ProgressChannel
    private let executor: (any TaskExecutor)?
    /// What cancelling must stop besides the task (a streamed body, once the task has returned it).
    private let cancellationHooks: CancellationHooks?

    /// Starts `operation` at once. It receives a handler through which it reports progress.
    ///
    /// - Parameters:
    ///   - executorPreference: Where the operation and every chained handler prefer to run.
    ///   - operation: The work, reporting progress through the handler it receives.
    public convenience init(
        executorPreference: (any TaskExecutor)? = nil,
        _ operation: @escaping @Sendable (_ progress: @escaping ProgressHandler) async throws -> T
    ) {
        self.init(channel: ProgressChannel(), executor: executorPreference, operation: operation)
    }

    /// Starts `operation` at once; ``cancel()`` also runs what is added to `cancellationHooks`.
    package convenience init(
        executorPreference: (any TaskExecutor)?, cancellationHooks: CancellationHooks?,
        _ operation: @escaping @Sendable (_ progress: @escaping ProgressHandler) async throws -> T
    ) {
        self.init(
            channel: ProgressChannel(), executor: executorPreference, cancellationHooks: cancellationHooks,
            operation: operation)
    }

    private init(
        channel: ProgressChannel, executor: (any TaskExecutor)?, cancellationHooks: CancellationHooks? = nil,
        operation: @escaping @Sendable (_ progress: @escaping ProgressHandler) async throws -> T
    ) {
        progressChannel = channel
        self.executor = executor
        self.cancellationHooks = cancellationHooks
        task = Task(executorPreference: executor) {
            defer { channel.close() }
            do {
                return try await operation(channel.send)
            } catch is CancellationError {
                throw RestingError.cancelled
            }
        }
    }

    /// Starts `body` at once as the promise's task, with nothing around it: `body` reports progress to `channel`,
    /// closes it when it ends and throws ``RestingError/cancelled`` when cancelled. For the client's calls, which
    /// wait on the network: each closure between the task's start and the transfer is a frame held in the task's
    /// memory for as long as the call waits.
    package init(
        channel: ProgressChannel, executor: (any TaskExecutor)?, cancellationHooks: CancellationHooks?,
        running body: @escaping @Sendable () async throws -> T
    ) {
        progressChannel = channel
        self.executor = executor
        self.cancellationHooks = cancellationHooks
        task = Task(executorPreference: executor, operation: body)
    }

    /// A promise that has already settled with `value`.
    public convenience init(value: T) {
        self.init { _ in value }
    }

    /// The result: awaits the call. Cancelling the awaiting task cancels the call.
    public var value: T {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                cancel()
            }
        }
    }

    /// Cancels the call; the promise, and every promise derived from it, fails with ``RestingError/cancelled``.
    public func cancel() {
        task.cancel()
        cancellationHooks?.cancel()
    }

    /// Whether ``cancel()`` was called or the call was cancelled otherwise.
    public var isCancelled: Bool { task.isCancelled }

    /// Calls `handler` with each progress report. Returns this same promise, to keep chaining.
    @discardableResult
    public func progress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> ProgressablePromise<T> {
        let (reports, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        progressChannel.observe(onProgress: { continuation.yield($0) }, onClose: { continuation.finish() })
        Task(executorPreference: executor) {
            for await report in reports { handler(report) }
        }
        return self
    }

    /// A promise derived from this one: same executor, and this promise's progress flows into it.
    private func derived<U: Sendable>(
        _ body: @escaping @Sendable (ProgressChannel) async throws -> U
    ) -> ProgressablePromise<U> {
        let channel = ProgressChannel()
        progressChannel.forward(to: channel)
        return ProgressablePromise<U>(channel: channel, executor: executor) { _ in try await body(channel) }
    }

    /// Continues with another promise made from the value; its progress flows on too.
    public func then<U: Sendable>(
        _ body: @escaping @Sendable (T) async throws -> ProgressablePromise<U>
    ) -> ProgressablePromise<U> {
        derived { channel in
            let next = try await body(try await self.value)
            next.progressChannel.forward(to: channel)
            return try await next.value
        }
    }

    /// Transforms the value.
    public func map<U: Sendable>(_ transform: @escaping @Sendable (T) async throws -> U) -> ProgressablePromise<U> {
        derived { _ in try await transform(try await self.value) }
    }

    /// Looks at the value and passes it on unchanged; an error thrown by `body` fails the promise.
    public func get(_ body: @escaping @Sendable (T) async throws -> Void) -> ProgressablePromise<T> {
        derived { _ in
            let value = try await self.value
            try await body(value)
            return value
        }
    }

    /// Consumes the value. Follow it with ``catch(_:)`` to handle errors.
    public func done(_ body: @escaping @Sendable (T) async throws -> Void) -> ProgressablePromise<Void> {
        derived { _ in try await body(try await self.value) }
    }

    /// Replaces an error with the value of another promise; its progress flows on too.
    public func recover(
        _ body: @escaping @Sendable (any Error) async throws -> ProgressablePromise<T>
    ) -> ProgressablePromise<T> {
        derived { channel in
            do {
                return try await self.value
            } catch {
                let next = try await body(error)
                next.progressChannel.forward(to: channel)
                return try await next.value
            }
        }
    }

    /// Replaces an error with a value, or rethrows.
    public func recover(_ body: @escaping @Sendable (any Error) async throws -> T) -> ProgressablePromise<T> {
        derived { _ in
            do {
                return try await self.value
            } catch {
                return try await body(error)
            }
        }
    }

    /// Runs `body` once the promise settles, whichever way, and passes the result on unchanged.
    public func ensure(_ body: @escaping @Sendable () async -> Void) -> ProgressablePromise<T> {
        derived { _ in
            do {
                let value = try await self.value
                await body()
                return value
            } catch {
                await body()
                throw error
            }
        }
    }

    /// Handles an error, ending the chain. Chain ``PromiseFinalizer/finally(_:)`` to run code either way.
    @discardableResult
    public func `catch`(_ body: @escaping @Sendable (any Error) async -> Void) -> PromiseFinalizer {
        PromiseFinalizer(executor: executor) {
            do {
                _ = try await self.value
            } catch {
                await body(error)
            }
        } onCancel: {
            self.cancel()
        }
    }
}

/// The end of a promise chain, returned by ``ProgressablePromise/catch(_:)``.
public final class PromiseFinalizer: Sendable {
    private let task: Task<Void, Never>
    private let cancelChain: @Sendable () -> Void
    private let executor: (any TaskExecutor)?

    init(
        executor: (any TaskExecutor)?, _ operation: @escaping @Sendable () async -> Void,
        onCancel: @escaping @Sendable () -> Void
    ) {
        self.executor = executor
        cancelChain = onCancel
        task = Task(executorPreference: executor, operation: operation)
    }

    /// Runs `body` after the chain has settled and its `catch` handler, if called, has returned.
    @discardableResult
    public func finally(_ body: @escaping @Sendable () async -> Void) -> PromiseFinalizer {
        PromiseFinalizer(executor: executor) {
            await self.wait()
            await body()
        } onCancel: {
            self.cancel()
        }
    }

    /// Cancels the chain that leads here.
    public func cancel() { cancelChain() }

    /// Waits until the chain and its handlers have run.
    public func wait() async { await task.value }
}
