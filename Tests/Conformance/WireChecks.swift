import Foundation
import RestingCore
import RestingTestSupport
import Testing

extension TransportConformance {
    /// A status line RFC 9112 §4 allows — an empty reason after its space — is a response, and so is one with
    /// nothing after the code (`HTTP/1.1 200`: servers send it, libcurl and the proposed standard Swift HTTP client's
    /// conformance suite take it); one it does not — a code that is not three digits, no version, a protocol name not
    /// in capitals (it is case-sensitive, §2.3) — fails as `.malformedResponse`, never as a success or another kind.
    public func statusLines() async throws {
        var valid = ["empty-reason"]
        var malformed = ["short-code", "long-code", "letters", "no-version"]
        if capabilities.readsStatusLines {
            valid.append("no-reason")
            malformed.append("lowercase")
        }
        for line in valid {
            let response = try await send(HTTPRequest(method: .get, url: url("/status-line/\(line)")))
            #expect(response.status == 200 && response.body.data == Data("ok".utf8), "\(name): the status line \(line)")
        }
        for line in malformed {
            let error = await failure {
                try await send(HTTPRequest(method: .get, url: url("/status-line/\(line)"), timeout: .seconds(5)))
            }
            guard case .transportFailed(let failure) = error else {
                Issue.record(
                    "\(name): the status line \(line) must fail as malformedResponse, got \(String(describing: error))")
                continue
            }
            #expect(failure.kind == .malformedResponse, "\(name): the status line \(line): \(failure)")
        }
    }

    /// A chunked body with trailers on a kept-alive connection arrives whole, its trailers never among its headers,
    /// and the connection serves the next request: the trailers were read to their end, not left for it to find.
    public func trailersOnAKeptConnection() async throws {
        guard capabilities.survivesTrailers else { return }
        try await withTaskExecutorPreference(transport.executor) {
            let first = try await send(HTTPRequest(method: .get, url: url("/keepalive/trailers")))
            #expect(first.status == 200 && first.body.data == Data("kept".utf8), "\(name)")
            #expect(first.headers["X-Checksum"] == nil, "\(name): a trailer joined the headers: \(first.headers)")
            let next = try await send(HTTPRequest(method: .get, url: url("/keepalive/ok")))
            #expect(next.status == 200 && next.body.data == Data("kept".utf8), "\(name)")
        }
    }
}
