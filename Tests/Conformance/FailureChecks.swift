import Foundation
import RestingCore
import RestingServerHarness
import Testing

extension TransportConformance {
    /// A request slower than its timeout fails as timed out; a server that goes silent fails on the idle timeout;
    /// a connection that never completes fails on the connect timeout.
    public func timeouts() async throws {
        let total = await failure { try await send(HTTPRequest(method: .get, url: url("/delay/10000"), timeout: .milliseconds(300))) }
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
        let neverConnects = HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(unresponsive.port)/")))
        let connect = await failure { try await send(neverConnects, on: connectTransport) }
        guard case .transportFailed(let stalled) = connect, stalled.kind == .timedOut else {
            Issue.record("\(name): expected a connect timeout, got \(String(describing: connect))")
            return
        }
    }

    /// With nothing configured, a server that drips one byte a second is still cut off — by the default
    /// ``MinimumTransferRate`` — as timed out. (The stub has no wire to drip on.)
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

    /// Cancelling mid-request, mid-upload and mid-download ends the call with `.cancelled`.
    public func cancellation() async throws {
        let upload = Data(count: 8 * 1024 * 1024)
        for (path, method, body) in [("/delay/30000", HTTPMethod.get, Data()), ("/slow-read", .put, upload), ("/slow-download", .get, Data())] {
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
        let timed = Task { try await send(HTTPRequest(method: .get, url: url("/delay/30000?tag=\(tag)"), timeout: .seconds(20))) }
        try await server.waitUntilDelaying(tag: tag)
        timed.cancel()
        guard case .cancelled = await failure({ try await timed.value }) else {
            Issue.record("\(name): a call with a timeout, cancelled, must fail with .cancelled")
            return
        }
        // Cancelled before it starts.
        let early = Task { try await send(HTTPRequest(method: .get, url: url("/delay/30000"))) }
        early.cancel()
        guard case .cancelled = await failure({ try await early.value }) else {
            Issue.record("\(name): a call cancelled before it started must fail with .cancelled")
            return
        }
    }

    /// Each way a server can misbehave ends in a typed transport error, never a hang, crash or success.
    public func faults() async throws {
        let refusedPort = try LocalServer.unusedPort()
        let refused = HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(refusedPort)/")), timeout: .seconds(5))
        guard case .transportFailed(let refusal) = await failure({ try await send(refused) }), refusal.kind == .connectionFailed else {
            Issue.record("\(name): a refused connection must fail as connectionFailed")
            return
        }
        for fault in ["reset-headers", "reset-body", "short-body", "bad-chunked", "garbage-status", "huge-header", "drip", "silent"] {
            let request = HTTPRequest(method: .get, url: try url("/\(fault)"), timeout: .seconds(3))
            let error = await failure { try await send(request) }
            switch error {
            case .transportFailed, .responseTooLarge: break
            default: Issue.record("\(name): /\(fault) must fail with a transport error, got \(String(describing: error))")
            }
        }
    }
}
