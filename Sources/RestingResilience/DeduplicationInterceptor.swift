import RestingCore

/// Lets identical idempotent requests issued while one is in flight share its response, instead of each
/// reaching the server.
///
/// Two requests are identical when they have the same method (`GET` or `HEAD`), URL and headers (names
/// ignoring case, minus `ignoredHeaders` such as per-request trace ids), no body and no download target:
/// downloads are never merged, since each writes its own file. The look-up and the
/// registration of a new request happen under one lock, so two simultaneous requests can never both go out
/// (the check-then-act race of Moya's `trackInflights`).
///
/// The first caller sends the request; the others wait for its outcome. A waiter that cancels stops waiting
/// at once. If the first caller cancels, its request is cancelled with it, and a waiter that still wants the
/// response sends the request again.
///
/// Opt in per client by adding it, or per endpoint with `sharing`:
///
/// ```swift
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, interceptors: [DeduplicationInterceptor()])
/// let onlyFeeds = DeduplicationInterceptor(sharing: { $0.url.path.hasPrefix("/feeds/") })
/// ```
public final class DeduplicationInterceptor: RestingInterceptor {
    /// Header names (lowercased) left out when deciding whether two requests are the same, such as tracing ids.
    public let ignoredHeaders: Set<String>
    private let sharing: @Sendable (HTTPRequest) -> Bool
    private let inFlight = Locked<[String: SharedOutcome]>([:])

    private enum Role {
        case sender(SharedOutcome)
        case waiter(SharedOutcome, ticket: UInt64)
    }

    /// An interceptor sharing responses between identical requests in flight.
    ///
    /// - Parameters:
    ///   - ignoredHeaders: Headers that may differ between requests that are still the same (tracing ids).
    ///   - sharing: Which requests may be shared (all idempotent ones by default).
    public init(
        ignoredHeaders: Set<String> = ["X-Request-Id", "traceparent", "tracestate"],
        sharing: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
    ) {
        self.ignoredHeaders = Set(ignoredHeaders.map { $0.lowercased() })
        self.sharing = sharing
    }

    /// Sends the request, or waits for the identical one already in flight and shares its outcome.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        // A download's response is its file, and a streamed body can be read once: each caller needs its own.
        guard request.method == .get || request.method == .head, request.body.isEmpty, request.answersInMemory,
            sharing(request)
        else {
            return try await execution(request)
        }
        let key = key(for: request)
        while true {
            let role: Role = inFlight.withLock { calls in
                if let shared = calls[key] { return .waiter(shared, ticket: shared.join()) }
                let shared = SharedOutcome()
                calls[key] = shared
                return .sender(shared)
            }
            switch role {
            case .sender(let shared):
                let outcome = await Result { try await execution(request) }
                // Later requests must not join a request that has settled.
                inFlight.withLock { calls in if calls[key] === shared { calls[key] = nil } }
                shared.publish(outcome)
                return try outcome.get()
            case .waiter(let shared, let ticket):
                do {
                    return try await shared.wait(ticket)
                } catch RestingError.cancelled where !Task.isCancelled {
                    continue  // the sender was cancelled, this caller was not: send it again
                }
            }
        }
    }

    private func key(for request: HTTPRequest) -> String {
        let headers = request.headers
            .filter { !ignoredHeaders.contains($0.name.lowercased()) }
            .map { "\($0.name.lowercased()): \($0.value)" }
        return ([request.method.rawValue, request.url.absoluteString] + headers).joined(separator: "\n")
    }
}

/// The outcome of one request, awaited by callers that joined while it was in flight; each is resumed once.
final class SharedOutcome: Sendable {
    private typealias Waiter = CheckedContinuation<HTTPDataResponse, any Error>

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        /// Callers that joined and have neither been answered nor cancelled.
        var interested: Set<UInt64> = []
        var nextTicket: UInt64 = 0
        var outcome: Result<HTTPDataResponse, any Error>?
    }

    private let state = Locked(State())

    /// Registers a caller; pass the ticket to ``wait(_:)``.
    func join() -> UInt64 {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            state.interested.insert(state.nextTicket)
            return state.nextTicket
        }
    }

    /// The shared outcome, or `.cancelled` as soon as this caller is cancelled.
    func wait(_ ticket: UInt64) async throws -> HTTPDataResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let ready: Result<HTTPDataResponse, any Error>? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    guard state.interested.contains(ticket) else { return .failure(RestingError.cancelled) }
                    state.waiters[ticket] = waiter
                    return nil
                }
                if let ready { waiter.resume(with: ready) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard state.outcome == nil, state.interested.remove(ticket) != nil else { return nil }
                return state.waiters.removeValue(forKey: ticket)
            }
            waiter?.resume(throwing: RestingError.cancelled)
        }
    }

    func publish(_ outcome: Result<HTTPDataResponse, any Error>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            state.interested = []
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
