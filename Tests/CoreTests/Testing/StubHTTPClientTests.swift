import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// The stub's own contract; the conformance suite (CurlTests) runs it through every transport check as well.
@Suite("StubHTTPClient behaves like a transport")
struct StubHTTPClientTests {
    let base = URL(string: "https://api.example.com")!

    @Test(
        "a redirect between stubbed routes is followed by the chain, each hop recorded, credentials dropped off-origin")
    func followsRedirects() async throws {
        let stub = StubHTTPClient()
        let client = RestingClient(baseUrl: "", httpClient: stub)
        stub.register(.post, "/old", .status(307, headers: ["Location": "https://other.example.com/new"]))
        stub.register(.post, "/new", .text("moved"))
        let request = HTTPRequest(
            method: .post, url: base.appendingPathComponent("old"), headers: ["Authorization": "Bearer secret"],
            body: .bytes(Data("payload".utf8)))
        let response = try await client.exchange(request) { _ in }
        #expect(response.status == 200 && response.url?.host == "other.example.com")
        #expect(stub.received.map(\.request.url.path) == ["/old", "/new"])
        #expect(stub.received.map(\.body) == [Data("payload".utf8), Data("payload".utf8)])
        #expect(stub.received[1].request.headers["Authorization"] == nil)
    }

    @Test("the stub performs one exchange: a 3xx is its answer, as with a client whose maximumRedirects is 0")
    func redirectsOff() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/old", .status(301, headers: ["Location": "/new"]))
        let request = HTTPRequest(method: .get, url: base.appendingPathComponent("old"))
        let alone = try await stub.send(request) { _ in }
        let client = RestingClient(baseUrl: "", httpClient: stub, maximumRedirects: 0)
        let throughClient = try await client.exchange(request) { _ in }
        #expect(alone.status == 301 && throughClient.status == 301 && stub.received.count == 2)
    }

    @Test("an answer slower than the request's timeout fails as timedOut; the stub's idle timeout applies too")
    func timeouts() async throws {
        let slow = StubResponse.text("late").delayed(by: .seconds(30))
        for (stub, timeout) in [
            (StubHTTPClient(), Duration.milliseconds(50)), (StubHTTPClient(idleTimeout: .milliseconds(50)), nil),
        ] {
            stub.register(.get, "/slow", slow)
            let request = HTTPRequest(method: .get, url: base.appendingPathComponent("slow"), timeout: timeout)
            let error = await #expect(throws: RestingError.self) { try await stub.send(request) { _ in } }
            guard case .transportFailed(let failure) = error, failure.kind == .timedOut else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("HEAD, 204 and 304 answers have no body, whatever was registered")
    func bodilessAnswers() async throws {
        let stub = StubHTTPClient()
        stub.register(.head, "/a", .text("body"))
        stub.register(.get, "/b", .text("body", status: 204))
        stub.register(.get, "/c", .text("body", status: 304))
        for (method, path) in [(RequestMethod.head, "a"), (.get, "b"), (.get, "c")] {
            let response = try await stub.send(HTTPRequest(method: method, url: base.appendingPathComponent(path))) {
                _ in
            }
            #expect(response.body.isEmpty, "\(method) /\(path)")
        }
    }

    @Test("a content-coded answer fails as unsupported rather than passing coded bytes on")
    func contentCodings() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/gz", .status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1f, 0x8b])))
        stub.register(.get, "/plain", .status(200, headers: ["Content-Encoding": "identity"], body: Data("ok".utf8)))
        let error = await #expect(throws: RestingError.self) {
            try await stub.send(HTTPRequest(method: .get, url: base.appendingPathComponent("gz"))) { _ in }
        }
        guard case .unsupported(_, let transport) = error, transport == "StubHTTPClient" else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        let plain = try await stub.send(HTTPRequest(method: .get, url: base.appendingPathComponent("plain"))) { _ in }
        #expect(plain.body.data == Data("ok".utf8))
    }

    @Test("a download's 2xx body lands in the file, not in memory; an error status keeps its body for the error")
    func downloads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stub-download-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubHTTPClient()
        let content = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        stub.register(.get, "/files/a.bin", .status(200, headers: ["ETag": "\"v1\""], body: content))
        stub.register(.get, "/files/missing.bin", .text("no such file", status: 404))
        let client = makeClient(stub)
        let file = Endpoint<Nothing, Nothing>(.get, "/files/{{name}}", encoding: .query)

        let downloaded = try await client.download(
            RestingRequest(endpoint: file, pathVariables: ["name": "a.bin"]),
            to: directory.appendingPathComponent("a.bin")
        ).value
        #expect(downloaded.size == Int64(content.count) && downloaded.status == 200)
        #expect(try Data(contentsOf: downloaded.url) == content)

        let error = await restingError {
            try await client.download(
                RestingRequest(endpoint: file, pathVariables: ["name": "missing.bin"]),
                to: directory.appendingPathComponent("m.bin")
            ).value
        }
        guard case .httpError(let httpError) = error else {
            Issue.record("expected an HTTP error, got \(String(describing: error))")
            return
        }
        #expect(httpError.status == 404 && String(decoding: httpError.body, as: UTF8.self) == "no such file")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("m.bin").path))
    }

    @Test("the fallback answers what no route matches; cancelling it while it waits is .cancelled")
    func fallback() async throws {
        let stub = StubHTTPClient { received in
            if received.request.url.path == "/wait" { try await Task.sleep(for: .seconds(60)) }
            return .text("fallback for \(received.request.url.path)")
        }
        stub.register(.get, "/registered", .text("registered"))
        let registered = try await stub.send(HTTPRequest(method: .get, url: base.appendingPathComponent("registered")))
        { _ in }
        let other = try await stub.send(HTTPRequest(method: .get, url: base.appendingPathComponent("other"))) { _ in }
        #expect(String(decoding: registered.body.bytes, as: UTF8.self) == "registered")
        #expect(String(decoding: other.body.bytes, as: UTF8.self) == "fallback for /other")

        let waiting = Task {
            try await stub.send(HTTPRequest(method: .get, url: base.appendingPathComponent("wait"))) { _ in }
        }
        waiting.cancel()
        let error = await #expect(throws: RestingError.self) { try await waiting.value }
        guard case .cancelled = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
    }
}
