import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

extension TransportConformance {
    /// A request slower than its timeout fails as timed out; a server that goes silent fails on the idle timeout;
    /// a connection that never completes fails on the connect timeout.
    public func timeouts() async throws {
        let total = await failure {
            try await send(HTTPRequest(method: .get, url: url("/delay/10000"), timeout: .milliseconds(300)))
        }
        guard case .transportFailed(let timedOut) = total, timedOut.kind == .timedOut else {
            Issue.record("\(name): expected a total timeout, got \(String(describing: total))")
            return
        }
        let idleTransport = try makeTransport(Settings(idleTimeout: .seconds(1)))
        let idle = await failure { try await send(HTTPRequest(method: .get, url: url("/silent")), on: idleTransport) }
        guard case .transportFailed(let silent) = idle, silent.kind == .timedOut else {
            Issue.record("\(name): expected an idle timeout, got \(String(describing: idle))")
            return
        }
        guard capabilities.opensConnections else {
            do {
                _ = try makeTransport(Settings(connectTimeout: .milliseconds(500)))
                Issue.record("\(name): a connect timeout on a transport without connections must fail as .unsupported")
            } catch RestingError.unsupported {
            }
            return
        }
        let unresponsive = try UnresponsiveListener()
        let connectTransport = try makeTransport(Settings(connectTimeout: .milliseconds(500)))
        let neverConnects = HTTPRequest(
            method: .get, url: try #require(URL(string: "\(server.scheme)://127.0.0.1:\(unresponsive.port)/")))
        let connect = await failure { try await send(neverConnects, on: connectTransport) }
        guard case .transportFailed(let stalled) = connect, stalled.kind == .timedOut else {
            Issue.record("\(name): expected a connect timeout, got \(String(describing: connect))")
            return
        }
    }

    /// With nothing configured, a server that drips one byte a second is still cut off — by the default
    /// ``/RestingCore/MinimumTransferRate`` — as timed out. (The stub has no wire to drip on.)
    public func dripWithDefaults() async throws {
        guard capabilities.opensConnections else { return }
        let transport = try makeTransport(Settings())
        let error = await failure { try await send(HTTPRequest(method: .get, url: url("/drip")), on: transport) }
        guard case .transportFailed(let failure) = error, failure.kind == .timedOut else {
            Issue.record("\(name): a drip with default settings must end as timedOut, got \(String(describing: error))")
            return
        }
        #expect(failure.message.contains("slower than"), "\(name): \(failure.message)")
    }

    /// Cancelling mid-request, mid-upload and mid-download ends the call with `.cancelled`. The server holds
    /// each call for two minutes: under AddressSanitizer on two cores a test can wait tens of seconds for a
    /// thread, and the cancel must still come first.
    public func cancellation() async throws {
        let upload = Data(count: 8 * 1024 * 1024)
        for (path, method, body) in [
            ("/delay/120000", RequestMethod.get, Data()), ("/slow-read", .put, upload),
            ("/slow-download", .get, Data()),
        ] {
            let tag = UUID().uuidString
            let request = HTTPRequest(method: method, url: try url("\(path)?tag=\(tag)"), body: .bytes(body))
            let call = Task { try await send(request) }
            try await server.waitUntilDelaying(tag: tag)
            call.cancel()
            let error = await failure { try await call.value }
            guard case .cancelled = error else {
                Issue.record("\(name): \(path) expected .cancelled, got \(String(describing: error))")
                continue
            }
        }
        // Cancelled while its own timeout is still running.
        let tag = UUID().uuidString
        let timed = Task {
            try await send(HTTPRequest(method: .get, url: url("/delay/120000?tag=\(tag)"), timeout: .seconds(100)))
        }
        try await server.waitUntilDelaying(tag: tag)
        timed.cancel()
        guard case .cancelled = await failure({ try await timed.value }) else {
            Issue.record("\(name): a call with a timeout, cancelled, must fail with .cancelled")
            return
        }
        // Cancelled before it starts.
        let early = Task { try await send(HTTPRequest(method: .get, url: url("/delay/120000"))) }
        early.cancel()
        guard case .cancelled = await failure({ try await early.value }) else {
            Issue.record("\(name): a call cancelled before it started must fail with .cancelled")
            return
        }
    }

    /// Each way a server can misbehave ends in the exact kind of transport error that retry and offline
    /// decisions depend on — never a hang, a crash or a success.
    public func faults() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let refusedPort = refusing.port
        // A 64-character label fails in the resolver itself: no query leaves the machine.
        let unresolvable = String(repeating: "a", count: 64) + ".invalid"
        var cases: [(String, HTTPRequest, TransportError.Kind)] = [
            (
                "a refused connection",
                HTTPRequest(
                    method: .get, url: try #require(URL(string: "\(server.scheme)://127.0.0.1:\(refusedPort)/")),
                    timeout: .seconds(5)),
                .connectionFailed
            ),
            (
                "an unresolvable host",
                HTTPRequest(
                    method: .get, url: try #require(URL(string: "\(server.scheme)://\(unresolvable):\(server.port)/")),
                    timeout: .seconds(5)),
                .dnsFailed
            ),
            (
                "a reset during an upload",
                HTTPRequest(
                    method: .put, url: try url("/reset-upload"), body: .bytes(Data(count: 8 * 1024 * 1024)),
                    timeout: .seconds(10)), .connectionReset
            ),
        ]
        let kinds: [(String, TransportError.Kind)] = [
            ("reset-headers", .connectionReset), ("reset-body", .connectionReset), ("short-body", .malformedResponse),
            ("bad-chunked", .malformedResponse), ("chunked-cut", .malformedResponse),
            ("garbage-status", .malformedResponse),
            ("conflicting-length", .malformedResponse), ("huge-header", .malformedResponse),
            ("header-flood", .malformedResponse),
            ("drip", .timedOut), ("silent", .timedOut),
        ]
        // FoundationNetworking takes seconds over the 40,000 fields of /header-flood before libcurl's own limit
        // stops it: that one gets longer than the others, whose 3 s only bound a transport that would hang.
        for (fault, kind) in kinds {
            // Without HTTP/1.1's framing, a fault in it is a reset stream.
            let kind = kind == .malformedResponse && !capabilities.readsHTTP1Framing ? .connectionReset : kind
            cases.append(
                (
                    "/\(fault)",
                    HTTPRequest(
                        method: .get, url: try url("/\(fault)"), timeout: .seconds(fault == "header-flood" ? 30 : 3)),
                    kind
                ))
        }
        for (label, request, kind) in cases {
            let error = await failure { try await send(request) }
            guard case .transportFailed(let failure) = error else {
                Issue.record("\(name): \(label) must fail as \(kind), got \(String(describing: error))")
                continue
            }
            #expect(failure.kind == kind, "\(name): \(label) must fail as \(kind), got \(failure)")
        }
    }

    /// A kept-alive connection serves the next request, and a connection that failed mid-response is never
    /// used again: the call after the fault succeeds on a new one.
    public func reuseAfterFault() async throws {
        // On the transport's executor, if it has one: a transport with several I/O threads (CurlClient's drivers,
        // each with its connections) keeps a task's requests on the thread it runs on, whereas requests from outside
        // go to whichever is least busy — and a transfer of the previous check still winding down can make that
        // another thread, with another connection.
        try await withTaskExecutorPreference(transport.executor) { try await sendAroundAFault() }
    }

    private func sendAroundAFault() async throws {
        var kept: [HTTPDataResponse] = []
        for _ in 0..<3 { kept.append(try await send(HTTPRequest(method: .get, url: url("/keepalive/ok")))) }
        let fault = await failure {
            try await send(HTTPRequest(method: .get, url: url("/keepalive/fault"), timeout: .seconds(5)))
        }
        guard case .transportFailed(let failure) = fault, failure.kind == .connectionReset else {
            Issue.record(
                "\(name): a reset on a kept-alive connection must fail as connectionReset, got \(String(describing: fault))"
            )
            return
        }
        // Succeeding at all proves no dead connection was used: the server never answers on one it reset.
        let after = try await send(HTTPRequest(method: .get, url: url("/keepalive/ok")))
        #expect((kept + [after]).allSatisfy { $0.status == 200 && $0.body.data == Data("kept".utf8) }, "\(name)")
        guard capabilities.opensConnections else { return }
        // Whether a request sent the moment the previous response arrived finds its connection free again is up to
        // the stack (FoundationNetworking's queues, under load, sometimes open another): of three, one must reuse.
        let connections = kept.map { $0.headers["X-Connection"] }
        #expect(Set(connections).count < kept.count, "\(name): a kept-alive connection served a later request")
        if Set(connections).count == 1 {
            #expect(after.headers["X-Connection"] != connections[0], "\(name): the faulted connection was not reused")
        }
    }

    /// What a server may send that is odd but valid: an interim 103 before the answer (only the final head
    /// counts), both framings at once (chunked wins, never the length), and a compressed body that decodes to
    /// far more than the size limit (stopped at the limit).
    public func unusualFraming() async throws {
        let interim = try await send(HTTPRequest(method: .get, url: url("/interim")))
        #expect(interim.status == 200 && interim.body.data == Data("final".utf8), "\(name): \(interim.status)")
        #expect(
            interim.headers["X-Final"] == "yes" && interim.headers["X-Interim"] == nil, "\(name): \(interim.headers)")
        do {
            let both = try await send(HTTPRequest(method: .get, url: url("/length-and-chunked")))
            #expect(
                both.body.data == Data("hello".utf8),
                "\(name): read by the wrong framing: \(String(decoding: both.body.bytes, as: UTF8.self).debugDescription)"
            )
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .malformedResponse, "\(name): \(failure)")
        }
        guard capabilities.decodesContentCodings else { return }
        let limited = try makeTransport(Settings(maximumResponseSize: 8 * 1024 * 1024))
        let bomb = await failure { try await send(HTTPRequest(method: .get, url: url("/gzip-bomb")), on: limited) }
        guard case .responseTooLarge = bomb else {
            Issue.record("\(name): a decompression bomb must stop at the limit, got \(String(describing: bomb))")
            return
        }
    }
}
