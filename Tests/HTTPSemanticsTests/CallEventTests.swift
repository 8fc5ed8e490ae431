import Foundation
import RestingCache
import RestingCore
import RestingServerHarness
import RestingTestSupport
import RestingTesting
import Testing

/// The events of a call, in order, on both network transports against `recording_server.py` and on a stub that
/// answers as that server does: a redirect, a retried 503, a cache revalidation, a streamed body, a download, and
/// the one terminal event of a call that fails or is cancelled.
@Suite("A call's events, stage by stage, on every transport")
struct CallEventTests {
    /// Every event a client reports, in order.
    typealias EventLog = EventRecorder

    /// A base URL and a transport: recording_server's first origin, or the stub acting as it.
    private func endpoint(_ transport: Transport) async throws -> (baseUrl: String, client: any HTTPClient) {
        switch transport {
        case .stub: ("http://stub.example.com", RecordingStub.make())
        default: (try await RecordingServer.shared.value.origins[0], try transport.networkClient)
        }
    }

    private func client(
        _ transport: Transport, interceptors: [any RestingInterceptor] = [],
        networkInterceptors: [any RestingInterceptor] = []
    ) async throws -> (RestingClient, EventLog) {
        let log = EventLog()
        let (baseUrl, httpClient) = try await endpoint(transport)
        // snippet: event-listener
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: httpClient, interceptors: interceptors,
            networkInterceptors: networkInterceptors, eventListener: .shared(log))
        // end snippet
        return (client, log)
    }

    private static func url(_ client: RestingClient, _ path: String) -> String {
        RedactionPolicy.default.url(URL(string: client.baseUrl + path)!)
    }

    private static let json = Data(#"[{"id":1}]"#.utf8)

    @Test("a 307 is one exchange, a redirect hop, and the next exchange", arguments: Transport.allCases)
    func redirect(_ transport: Transport) async throws {
        let (client, log) = try await client(transport)
        let first = "/events-\(transport)/a?status=307&location=/events-\(transport)/b"
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, first))).value
        let (a, b) = (Self.url(client, first), Self.url(client, "/events-\(transport)/b"))
        #expect(
            log.kinds(of: try log.call(0)) == [
                .callStarted, .requestConverted(method: .get, url: a),
                .exchangeStarted(method: .get, url: a, attempt: 1), .requestSent(bytes: nil),
                .responseHeadReceived(status: 307, timeToFirstByte: nil),
                .responseBodyEnded(bytes: Int64(Self.json.count), complete: true),
                .redirectFollowed(status: 307, url: b, hop: 1),
                .exchangeStarted(method: .get, url: b, attempt: 1), .requestSent(bytes: nil),
                .responseHeadReceived(status: 200, timeToFirstByte: nil),
                .responseBodyEnded(bytes: Int64(Self.json.count), complete: true), .callEnded(status: 200),
            ])
        try expectMeasured(log, transport, bodies: [0, 0])
    }

    @Test("a retried 503 reports the decision, its cause and the next attempt's number", arguments: Transport.allCases)
    func retried503(_ transport: Transport) async throws {
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .zero
        let (client, log) = try await client(transport, interceptors: [RetryInterceptor(policy: policy)])
        let path = "/events-\(transport)/retry-\(UUID().uuidString)?failfirst=1"
        let put = Endpoint<[String: Int], Data>(.put, path, encoding: .json)
        _ = try await client.send(RestingRequest(endpoint: put, body: ["n": 1]))
        let url = Self.url(client, path)
        #expect(
            log.kinds(of: try log.call(0)) == [
                .callStarted, .requestConverted(method: .put, url: url),
                .exchangeStarted(method: .put, url: url, attempt: 1), .requestSent(bytes: nil),
                .responseHeadReceived(status: 503, timeToFirstByte: nil),
                .responseBodyEnded(bytes: 9, complete: true),
                .retryScheduled(attempt: 2, delay: .zero, cause: .status(503)),
                .exchangeStarted(method: .put, url: url, attempt: 2), .requestSent(bytes: nil),
                .responseHeadReceived(status: 200, timeToFirstByte: nil),
                .responseBodyEnded(bytes: Int64(Self.json.count), complete: true), .callEnded(status: 200),
            ])
        try expectMeasured(log, transport, bodies: [7, 7])
    }

    @Test(
        "a cache miss, then a revalidation: a 304 on the wire, the stored 200 for the call",
        arguments: Transport.allCases)
    func cacheRevalidation(_ transport: Transport) async throws {
        let cache = HTTPCacheInterceptor(store: MemoryCacheStore())
        let (client, log) = try await client(transport, networkInterceptors: [cache])
        let path = "/events-\(transport)/cached-\(UUID().uuidString)?etag=%22v1%22&cc=no-cache"
        let endpoint = Endpoint<Nothing, Data>(.get, path)
        _ = try await client.perform(RestingRequest(endpoint: endpoint)).value
        let second = try await client.perform(RestingRequest(endpoint: endpoint)).value
        #expect(second.status == 200 && second.body == Self.json)
        let url = Self.url(client, path)
        let exchange: [CallEvent.Kind] = [
            .callStarted, .requestConverted(method: .get, url: url),
            .exchangeStarted(method: .get, url: url, attempt: 1),
            .requestSent(bytes: nil),
        ]
        #expect(
            log.kinds(of: try log.call(0)) == exchange + [
                .responseHeadReceived(status: 200, timeToFirstByte: nil),
                .responseBodyEnded(bytes: Int64(Self.json.count), complete: true), .cacheAnswered(.miss),
                .callEnded(status: 200),
            ])
        #expect(
            log.kinds(of: try log.call(1)) == exchange + [
                .responseHeadReceived(status: 304, timeToFirstByte: nil), .responseBodyEnded(bytes: 0, complete: true),
                .cacheAnswered(.revalidated), .callEnded(status: 200),
            ])
    }

    @Test("a streamed call ends when its body does, with the bytes the reader took", arguments: Transport.allCases)
    func streamedBody(_ transport: Transport) async throws {
        let (client, log) = try await client(transport)
        let path = "/events-\(transport)/stream?body=twelve-bytes"
        let response = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, ResponseBodyStream>(.get, path))
        ).value
        let id = try log.call(0)
        #expect(!log.kinds(of: id).contains { $0.isTerminal }, "the call has not ended: its body is still to read")
        #expect(try await response.body.collect(upTo: 1024) == Data("twelve-bytes".utf8))
        let url = Self.url(client, path)
        #expect(
            log.kinds(of: id) == [
                .callStarted, .requestConverted(method: .get, url: url),
                .exchangeStarted(method: .get, url: url, attempt: 1), .requestSent(bytes: nil),
                .responseHeadReceived(status: 200, timeToFirstByte: nil),
                .responseBodyEnded(bytes: 12, complete: true), .callEnded(status: 200),
            ])
    }

    @Test(
        "a streamed body its reader leaves ends the call as cancelled, with what was taken",
        arguments: Transport.network)
    func streamedBodyLeftEarly(_ transport: Transport) async throws {
        let (client, log) = try await client(transport)
        let path = "/events-\(transport)/left?events=200"
        let response = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, ResponseBodyStream>(.get, path))
        ).value
        for try await _ in response.body { break }
        let kinds = log.kinds(of: try log.call(0))
        #expect(kinds.last == .callCancelled)
        guard case .responseBodyEnded(let bytes, complete: false)? = kinds.dropLast().last else {
            Issue.record("the body's end is not reported before the call's: \(kinds)")
            return
        }
        #expect(bytes > 0)
    }

    @Test("a download reports the bytes the transport wrote to its file", arguments: Transport.network)
    func download(_ transport: Transport) async throws {
        let (client, log) = try await client(transport)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let path = "/events-\(transport)/download?body=0123456789abcdef"
        let downloaded = try await client.download(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, path)), to: file
        ).value
        #expect(downloaded.size == 16)
        let kinds = log.kinds(of: try log.call(0))
        #expect(kinds.suffix(2) == [.responseBodyEnded(bytes: 16, complete: true), .callEnded(status: 200)])
    }

    @Test("a call the server refuses ends once, failed, after the exchange's failure", arguments: Transport.network)
    func refusedConnection(_ transport: Transport) async throws {
        let refusing = try RefusingPort()
        let log = EventLog()
        let client = RestingClient(
            baseUrl: "http://127.0.0.1:\(refusing.port)", httpClient: try transport.networkClient,
            eventListener: .shared(log))
        await #expect(throws: RestingError.self) {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/x")))
        }
        let kinds = log.kinds(of: try log.call(0))
        #expect(kinds.filter(\.isTerminal).count == 1)
        guard case .exchangeFailed? = kinds.dropLast().last, case .callFailed(let type, _)? = kinds.last else {
            Issue.record("not an exchange failure then the call's: \(kinds)")
            return
        }
        #expect(type == "connectionFailed")
    }

    @Test(
        "a call cancelled from its own listener, at a server that never answers, ends once as cancelled",
        arguments: Transport.network)
    func cancelledFromTheListener(_ transport: Transport) async throws {
        let silent = try UnresponsiveListener()
        let client = Locked<RestingClient?>(nil)
        let (log, httpClient) = (EventLog(), try transport.networkClient)
        let listener = EventListenerFactory.shared { event in
            log.handle(event)
            if case .exchangeStarted = event.kind { client.withLock { $0 }?.cancelAll() }
        }
        client.withLock {
            $0 = RestingClient(
                baseUrl: "http://127.0.0.1:\(silent.port)", httpClient: httpClient,
                eventListener: listener)
        }
        let call = try #require(client.withLock { $0 }).perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/never")))
        await #expect(throws: RestingError.cancelled) { try await call.value }
        client.withLock { $0 = nil }  // the listener holds the box that holds the client
        let kinds = log.kinds(of: try log.call(0))
        #expect(kinds.filter(\.isTerminal) == [.callCancelled])
        #expect(kinds.last == .callCancelled)
    }

    /// What CurlClient measured (URLSession on Linux measures nothing): the body bytes each exchange sent, and
    /// the connection each went on.
    private func expectMeasured(_ log: EventLog, _ transport: Transport, bodies: [Int64]) throws {
        guard transport == .curl else { return }
        let id = try log.call(0)
        let events = log.all.filter { $0.callID == id }.map(\.kind)
        #expect(events.compactMap { if case .requestSent(let bytes) = $0 { bytes } else { nil } } == bodies)
        let connections = events.compactMap { if case .connectionAcquired(let details) = $0 { details } else { nil } }
        #expect(connections.count == bodies.count && connections.allSatisfy { $0.protocolVersion == "1.1" })
    }
}

extension EventRecorder {
    /// The kinds of call `id`'s events, without what only a transport measures (the connection, the byte count of a
    /// request, the time to first byte): those are checked apart.
    func kinds(of id: UInt64) -> [CallEvent.Kind] {
        all.filter { $0.callID == id }.compactMap { event in
            switch event.kind {
            case .connectionAcquired: nil
            case .requestSent: .requestSent(bytes: nil)
            case .responseHeadReceived(let status, _): .responseHeadReceived(status: status, timeToFirstByte: nil)
            default: event.kind
            }
        }
    }

    /// The id of the call whose events came `index`-th, or the test fails.
    func call(_ index: Int) throws -> UInt64 { try #require(callID(index)) }
}

/// recording_server.py's answers, as a stub: `status`, `location`, `etag` (a matching `If-None-Match` is a 304),
/// `failfirst` and `body`.
enum RecordingStub {
    static func make() -> StubHTTPClient {
        let failed = Locked<[String: Int]>([:])
        return StubHTTPClient(fallback: { (received: StubHTTPClient.ReceivedRequest) -> StubResponse in
            let request = received.request
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            var query: [String: String] = [:]
            for item in items where query[item.name] == nil { query[item.name] = item.value ?? "" }
            let target = request.url.absoluteString
            let failing = failed.withLock { failed in
                guard failed[target, default: 0] < Int(query["failfirst"] ?? "0") ?? 0 else { return false }
                failed[target, default: 0] += 1
                return true
            }
            if failing { return .status(503, body: Data("try again".utf8)) }
            var headers: HTTPHeaderFields = [:]
            if let location = query["location"] { headers["Location"] = location }
            if let cc = query["cc"] { headers["Cache-Control"] = cc }
            if let etag = query["etag"] {
                headers["ETag"] = etag
                if request.headers["If-None-Match"] == etag { return .status(304, headers: headers) }
            }
            headers["Content-Type"] = "application/json"
            let body = Data((query["body"] ?? #"[{"id":1}]"#).utf8)
            return .status(Int(query["status"] ?? "200") ?? 200, headers: headers, body: body)
        })
    }
}
