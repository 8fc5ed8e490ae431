import Synchronization

/// One descent of a call through the chain, from the interceptor it starts at to the end, shared by every step it
/// passes: a call through six interceptors allocates one of these, not one object per interceptor.
///
/// An interceptor's execution is a misuse once the interceptor has returned, so the run keeps, for each step, whether
/// its interceptor has returned. A step's interceptor may call its execution more than once — a retry one after the
/// other, a hedge at the same time — and each of those calls must find the steps below it fresh: the first goes on in
/// this run, and each later one starts a run of its own. A run covers ``capacity`` steps (a bit of each flag word
/// apiece); a chain longer than that goes on in a new run.
final class ChainRun: Sendable {
    /// The most steps one run covers.
    static let capacity = UInt64.bitWidth

    private let interceptors: [any RestingInterceptor]
    /// What follows the last interceptor. Of the default isolation, not the caller's: an interceptor may call its
    /// execution from another actor (the main actor), and what follows — the redirect follower, the network
    /// interceptors, the credential boundary — must go on on the call's executor, not on that actor.
    private let end: @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    /// The first step this run covers.
    private let first: Int
    /// Steps whose interceptor has returned. Atomics rather than a lock: set once per step, read on each call of an
    /// execution, possibly from a task the interceptor left behind.
    private let returned = Atomic<UInt64>(0)
    /// Steps whose execution has been called, and so have gone on in this run.
    private let descended = Atomic<UInt64>(0)

    private init(
        _ interceptors: [any RestingInterceptor], from first: Int,
        end: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    ) {
        self.interceptors = interceptors
        self.first = first
        self.end = end
    }

    /// Runs `interceptors[index...]`, then `end`. Never inlined: it would enlarge the frame of a chain without
    /// interceptors.
    @inline(never)
    nonisolated(nonsending) static func start(
        _ interceptors: [any RestingInterceptor], from index: Int, _ request: HTTPRequest,
        end: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    ) async throws -> HTTPDataResponse {
        guard index < interceptors.count else { return try await end(request) }
        return try await ChainRun(interceptors, from: index, end: end).step(index, request)
    }

    /// Hands `request` to the interceptor of step `index`, with the rest of the chain as its execution; past the last
    /// step, to the end of the chain.
    @inline(never)
    nonisolated(nonsending) func step(_ index: Int, _ request: HTTPRequest) async throws -> HTTPDataResponse {
        guard index < interceptors.count else { return try await end(request) }
        defer { returned.bitwiseOr(bit(index), ordering: .releasing) }
        return try await interceptors[index].intercept(request: request, execution: InterceptorExecution(self, index))
    }

    /// The run the step after `index` goes on in when step `index`'s interceptor calls its execution: this one the
    /// first time, and a run of its own each time after (a retry, a hedge). Not async, so that an execution's call
    /// costs no frame besides the step's. Never inlined, and its error untyped, so that neither its working nor a
    /// `RestingError` takes room in the execution's frame, which a waiting call holds.
    @inline(never)
    func descending(after index: Int) throws -> ChainRun {
        let bit = bit(index)
        guard returned.load(ordering: .acquiring) & bit == 0 else {
            throw RestingError.interceptorMisuse(
                interceptor: String(describing: type(of: interceptors[index])),
                reason: "called execution after intercept(request:execution:) had returned")
        }
        let next = index + 1
        // Past the last step there is no flag to keep: the end of the chain is called as often as it is asked.
        guard next < interceptors.count else { return self }
        let isFirstDescent = descended.bitwiseOr(bit, ordering: .relaxed).oldValue & bit == 0
        return isFirstDescent && next - first < Self.capacity ? self : ChainRun(interceptors, from: next, end: end)
    }

    private func bit(_ index: Int) -> UInt64 { 1 << UInt64(index - first) }
}
