import CCurl
import RestingConnections
import RestingCore
import Synchronization

/// An ``/RestingCore/HTTPClient`` directly on libcurl's multi interface: the fast transport on Linux, and the one with
/// TLS pinning, client certificates, proxies, Unix sockets and per-phase timings.
///
/// ```swift
/// let transport = try CurlClient()
/// let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
///
/// // The fast path for request loops: run them on the transport's own thread.
/// let posts = try await Task(executorPreference: transport.executor) {
///     try await client.perform(RestingRequest(endpoint: listPosts)).value.body
/// }.value
/// ```
///
/// Transfers are driven by one thread per processor core, each with its own libcurl multi handle and connection
/// cache (see ``CurlConfiguration/driverCount`` and ``executor``); connections, TLS sessions and DNS answers are
/// cached and reused, and HTTP/2 is multiplexed over TLS. A `send` is one exchange: redirects are followed by the
/// client's chain, so each hop is a fresh transfer with the same TLS settings (a pin cannot be bypassed by
/// redirecting to another host). Keep one client for the life of your app.
///
/// It validates nothing: a `RestingClient`'s chain checks every request where it leaves for the transport (header
/// names and values — no CR, LF or NUL, which libcurl would send as they are —, the method, the scheme, a body on a
/// `GET`). Calling `send` yourself, wrap it in ``/RestingCore/RedirectingHTTPClient``, which checks each request the
/// same way.
public final class CurlClient: HTTPClient {
    /// How this client connects, verifies and limits its transfers.
    public let configuration: CurlConfiguration
    package let drivers: CurlDriverPool
    package let census = TransferCensus()
    /// Waits for the sockets of upgraded connections (WebSockets), on a thread started at the first wait.
    /// Made at the first upgrade: a client that never opens a WebSocket holds no descriptor for it.
    private let poller = Locked<SocketPoller?>(nil)
    /// The upgraded connections still open, which shutdown waits for.
    package let upgrades = OpenUpgrades()
    /// Set by ``shutdown(gracePeriod:)``: new sends fail from then on.
    private let isShutDown = Atomic<Bool>(false)
    /// The origins heard advertising HTTP/3, when ``CurlConfiguration/discoversHTTP3`` is on and libcurl speaks it.
    let alternativeServices: AlternativeServices?

    /// A client with its own driver threads and connection caches; throws when libcurl cannot be set up with
    /// `configuration` (an option this libcurl lacks, say).
    public init(configuration: CurlConfiguration = CurlConfiguration()) throws {
        self.configuration = configuration
        alternativeServices =
            configuration.discoversHTTP3 && configuration.httpVersion == .http2OverTLS && Libcurl.loaded.supportsHTTP3
            ? AlternativeServices(file: configuration.alternativeServicesFile) : nil
        // Every client-wide option is set on a first handle now, so that one this libcurl refuses, or a malformed
        // host override, fails here rather than at the first call.
        CurlGlobal.initialize()
        _ = try EasyHandle.make(for: configuration)
        drivers = try CurlDriverPool(configuration: configuration)
    }

    deinit {
        // Saved once: a client shut down earlier must not write over what a newer one saved since.
        if !isShutDown.load(ordering: .relaxed) { try? alternativeServices?.save() }
        drivers.stop()
        poller.withLock { $0 }?.orphan()
    }

    /// The threads that drive libcurl, as one `TaskExecutor`. Tasks that prefer it — `Task(executorPreference:)`,
    /// `group.addTask(executorPreference:)` — run between transfers on one of those threads, which is what lets a
    /// request loop reach the speed of a plain C loop: a task started from outside goes to the least busy thread,
    /// and stays there, with its transfers. Never block on it: a synchronous wait there stalls every transfer of
    /// that thread. The threads live as long as the client: tasks that still prefer the executor after the client
    /// is released run on the global pool instead.
    public var executor: (any TaskExecutor)? { drivers }

    /// Waits until every driver thread has finished its current pass: for tests that count what settled calls
    /// left behind.
    package func settledCensus() async -> TransferCensus.Counts {
        await drivers.afterCurrentPasses()
        return census.current
    }

    /// One exchange: `request` (validated by the chain that sends it) and its response, a 3xx included.
    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        // The rarer exchanges each wait in a function of their own, and what is decided before waiting is decided
        // out of line: this frame is held for as long as any call waits (a subscription's whole life), and with
        // theirs inlined it was 1,680 bytes where a plain exchange needs a tenth.
        switch try kind(of: request) {
        case .plain: return try await exchange(request, progress: progress)
        case .upgrade: return try await upgrade(request)
        case .trailers: return try await exchangeWithTrailers(request, progress: progress)
        case .discovering(let services): return try await exchange(request, progress: progress, discovering: services)
        }
    }

    /// How ``send(_:progress:)`` exchanges a request.
    private enum ExchangeKind {
        case plain, upgrade, trailers
        /// Racing QUIC where the origin advertised HTTP/3 (``CurlConfiguration/discoversHTTP3``).
        case discovering(AlternativeServices)
    }

    /// How `request` is exchanged, or why it cannot be.
    @inline(never)
    private func kind(of request: HTTPRequest) throws -> ExchangeKind {
        guard !isShutDown.load(ordering: .relaxed) else { throw RestingError.shutDown }
        // HTTP/3 only where libcurl cannot is refused before anything is sent: never a silent downgrade.
        if let version = request.attributes.httpVersion { try Libcurl.loaded.check(version) }
        if request.upgrade != nil { return .upgrade }
        if request.body.trailers != nil { return .trailers }
        if let alternativeServices, request.attributes.httpVersion == nil { return .discovering(alternativeServices) }
        return .plain
    }

    /// An upgrade's exchange: HTTP/1.1 over TCP (RFC 9220's WebSockets over HTTP/3 are not libcurl's), so HTTP/3
    /// only cannot be honoured.
    @inline(never)
    private func upgrade(_ request: HTTPRequest) async throws -> HTTPDataResponse {
        if (request.attributes.httpVersion ?? configuration.httpVersion) == .http3Only {
            throw RestingError.unsupported(feature: "an upgrade (WebSocket) over HTTP/3", transport: "CurlClient")
        }
        return try await UpgradeExchange.perform(
            request, configuration: configuration, poller: try socketPoller(), upgrades: upgrades)
    }

    /// An exchange whose body ends with trailer fields, which libcurl sends in HTTP/1.1's chunked framing only and
    /// drops silently over HTTP/2 and HTTP/3: it goes over HTTP/1.1 (CurlTransfer), where the request allows it.
    @inline(never)
    private func exchangeWithTrailers(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws
        -> HTTPDataResponse
    {
        let version = request.attributes.httpVersion ?? configuration.httpVersion
        if version == .http3Only || version == .http2PriorKnowledge {
            throw RestingError.unsupported(
                feature: "request trailers over HTTP/2 or HTTP/3 (libcurl sends them over HTTP/1.1 only)",
                transport: "CurlClient")
        }
        return try await exchange(request, progress: progress)
    }

    /// An exchange that races QUIC where its origin advertised HTTP/3, and takes in what the answer advertises.
    @inline(never)
    private func exchange(
        _ request: HTTPRequest, progress: @escaping ProgressHandler, discovering services: AlternativeServices
    ) async throws -> HTTPDataResponse {
        guard let origin = Origin(request.url), origin.scheme == "https" else {
            return try await exchange(request, progress: progress)
        }
        let key = origin.description
        let route = services.route(to: key)
        var routed = request
        switch route {
        case .tcp: break
        case .probe: routed.attributes.httpVersion = .http3
        case .http3: routed.attributes.httpVersion = .http3Only
        }
        let response: HTTPDataResponse
        let started = ContinuousClock.now
        do {
            response = try await exchange(
                routed, progress: progress,
                connection: route.connection(within: request.timeout ?? configuration.totalTimeout))
        } catch RestingError.transportFailed(let failure) where route == .http3 {
            // QUIC stopped answering: the next calls go over TCP for a while, and this one too if it can be sent
            // again — nothing of it was sent (no connection), or it is idempotent — and its body read again.
            services.markBroken(key)
            let unsent = failure.kind == .connectionFailed || failure.isConnectTimeout
            guard !request.body.isSinglePass, unsent || request.method.isIdempotent && failure.kind == .connectionReset,
                let resent = request.resent(after: ContinuousClock.now - started, within: configuration.totalTimeout)
            else { throw RestingError.transportFailed(failure) }
            return try await exchange(resent, progress: progress)
        } catch {
            if route == .probe { services.settleProbe(key) }
            throw error
        }
        // Several Alt-Svc field lines are one list (RFC 9110 §5.3).
        let advertised = response.headers.values(for: "Alt-Svc")
        services.learn(
            advertised.isEmpty ? nil : advertised.joined(separator: ", "), origin: key, host: origin.host,
            port: origin.port, route: route, version: response.metrics?.protocolVersion)
        return response
    }

    /// One exchange over the transfer `request` asks for, on `connection`.
    private func exchange(
        _ request: HTTPRequest, progress: @escaping ProgressHandler, connection: TransferConnection = .any
    ) async throws -> HTTPDataResponse {
        // libcurl's own timer would also cut the body; a streamed response's timeout bounds its head only.
        if request.responseStreaming != nil, let timeout = request.timeout ?? configuration.totalTimeout {
            return try await transfer(
                request, progress: progress, headWithin: timeout, connection: connection)
        }
        return try await perform(makeTransfer(request, progress: progress, connection: connection))
    }

    /// A transfer failing when no head arrives within `timeout`. Apart from ``send(_:progress:)``
    /// so that the deadline's frame is held only by the calls that have one.
    @inline(never)
    private func transfer(
        _ request: HTTPRequest, progress: @escaping ProgressHandler, headWithin timeout: Duration,
        connection: TransferConnection
    ) async throws -> HTTPDataResponse {
        try await withDeadline(
            timeout,
            expired: { CurlError.restingError(CURLE_OPERATION_TIMEDOUT, detail: "no response head within \(timeout)") },
            operation: {
                try await self.perform(
                    self.makeTransfer(request, progress: progress, connection: connection))
            })
    }

    /// The poller of upgraded connections, made now if it was not.
    private func socketPoller() throws -> SocketPoller {
        try poller.withLock { poller in
            if let poller { return poller }
            let made = try SocketPoller(backend: configuration.socketWaiting)
            poller = made
            return made
        }
    }

    /// Whether ``shutdown(gracePeriod:)`` has begun (for tests).
    package var isShuttingDown: Bool { isShutDown.load(ordering: .relaxed) }

    /// Stops the client: new sends fail with ``/RestingCore/RestingError/shutDown``; transfers in flight, streamed
    /// bodies included, run to their end, or are cancelled once `gracePeriod` has passed; then every driver thread
    /// ends, with its handles, connections and TLS sessions freed. Tasks that still prefer ``executor`` run on the
    /// global pool from then on. See ``/RestingCore/HTTPClient/shutdown(gracePeriod:)``, and ``withCurlClient(configuration:gracePeriod:isolation:_:)``
    /// for a client that lives as long as a closure.
    public func shutdown(gracePeriod: Duration?) async {
        isShutDown.store(true, ordering: .relaxed)
        drivers.stop()
        let deadline = GracePeriod(gracePeriod) { [drivers, upgrades] in
            drivers.cancelEverything()
            upgrades.closeAll()
        }
        await drivers.whenAllStopped()
        await upgrades.whenAllClosed()
        deadline.cancel()
        // Kept for the next run as a hint: a file that cannot be written costs that run one call over TCP.
        try? alternativeServices?.save()
        poller.withLock { $0 }?.stop()
    }

    /// Runs `body` with a new client, and shuts the client down when `body` returns or throws, as AsyncHTTPClient's
    /// `withHTTPClient` does: no thread or connection outlives the closure.
    ///
    /// ```swift
    /// let posts = try await CurlClient.withCurlClient { transport in
    ///     let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
    ///     return try await client.perform(RestingRequest(endpoint: listPosts)).value.body
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the client's configuration.
    ///   - gracePeriod: how long the shutdown lets what still runs (a streamed body read elsewhere) go on before
    ///     cancelling it; `nil` waits for it.
    ///   - isolation: the caller's actor, which `body` runs on.
    ///   - body: the work, given the client.
    public static func withCurlClient<Result>(
        configuration: CurlConfiguration = CurlConfiguration(), gracePeriod: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation, _ body: (CurlClient) async throws -> Result
    ) async throws -> Result {
        try await CurlClient(configuration: configuration).shuttingDown(gracePeriod: gracePeriod, after: body)
    }

    /// Runs `transfer` on its driver and returns its response; cancelling the calling task cancels it. What is not
    /// awaited is done in non-inlined helpers (``makeTransfer(_:progress:)``): an async function's frame is held for as
    /// long as it waits, and this one waits for every response — ten thousand open streams hold ten thousand of it.
    func perform(_ transfer: CurlTransfer) async throws -> HTTPDataResponse {
        let driver = transfer.driver
        return try await withTaskCancellationHandler {
            // Only a wake-up: the outcome crosses threads under `CurlTransfer`'s lock. Checked, although the
            // lifecycle hands the continuation out once: ThreadSanitizer reports the unchecked kind's own hand-off,
            // through the concurrency runtime's atomics, as a race.
            await withCheckedContinuation { continuation in
                driver.submit(transfer, waiter: continuation)
            }
            return try transfer.takeResponse()
        } onCancel: {
            driver.cancel(transfer)
        }
    }

    /// A transfer of `request`, on the driver ``CurlDriverPool/driver(for:)`` places it on.
    @inline(never)
    private func makeTransfer(
        _ request: HTTPRequest, progress: @escaping ProgressHandler, connection: TransferConnection = .any
    ) -> CurlTransfer {
        let (driver, affinityKey, home) = drivers.driver(for: request.url)
        return CurlTransfer(
            request: request, progress: progress, maximumResponseSize: configuration.maximumResponseSize,
            minimumRate: configuration.minimumTransferRate, census: census, driver: driver, affinityKey: affinityKey,
            home: home, connection: connection)
    }
}
