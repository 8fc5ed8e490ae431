import Foundation
import RestingServerHarness
import Testing

@testable import RestingCore
@testable import RestingCurl

/// The peers of the suite, started once: h3_server.py over TLS on TCP and over QUIC on the same port, and the same
/// server with its UDP port closed. Each trusts a certificate of its own, in a folder of its own.
enum Peers {
    static let script = LocalServer.repository.appendingPathComponent("Tests/HTTP3/h3_server.py")
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rk-h3-\(UUID().uuidString)")
    static let quic = Task { try await start("quic") }
    static let tcpOnly = Task { try await start("tcp", "--no-quic") }
    /// TCP only, its UDP port closed, but advertising HTTP/3 on it all the same.
    static let stale = Task { try await start("stale", "--no-quic", "--advertise") }
    /// The same as `quic`, for the 100 MiB upload alone: a Python QUIC peer is busy for a while after one.
    static let uploads = Task { try await start("uploads") }

    private static func start(_ name: String, _ arguments: String...) async throws -> LocalServer {
        try await LocalServer.start(
            script: script, arguments: ["--certificate", folder.appendingPathComponent(name).path] + arguments)
    }

    /// A CurlClient speaking `version` that trusts the certificate of the peer `name` ("quic", "tcp" or "stale").
    static func transport(
        _ version: HTTPVersion, trusting name: String = "quic", discovering: Bool = false,
        keepingIn file: String? = nil,
        holdingAtMost limit: Int64? = nil
    ) throws -> CurlClient {
        var configuration = CurlConfiguration()
        if let limit { configuration.maximumResponseSize = limit }
        configuration.httpVersion = version
        configuration.discoversHTTP3 = discovering
        configuration.alternativeServicesFile = file
        configuration.tls.caFile = folder.appendingPathComponent("\(name)/cert.pem").path
        return try CurlClient(configuration: configuration)
    }
}

/// What the server says it heard.
struct Heard: Decodable, Sendable, Equatable {
    let version: String
    let tag: String
}

/// One request as the server logged it.
struct Logged: Decodable, Sendable {
    let version: String
    let method: String
    let path: String
    let client: Int
    let complete: Bool
    let authorized: Bool?
}

/// What the server's `/sink` says of a body it took.
struct Sunk: Decodable {
    let bytes: Int
    let intact: Bool
}

/// Every event a call reports, kept for the test to read.
final class Events: CallEventListener, @unchecked Sendable {
    private let lock = NSLock()
    private var kinds: [CallEvent.Kind] = []

    func handle(_ event: CallEvent) { lock.withLock { kinds.append(event.kind) } }

    /// The HTTP version of each connection the calls rode on.
    var protocolVersions: [String?] { connections.map(\.protocolVersion) }

    /// The connection each exchange rode on, as its `connectionAcquired` event described it.
    var connections: [CallEvent.ConnectionDetails] {
        lock.withLock { kinds.compactMap { if case .connectionAcquired(let details) = $0 { details } else { nil } } }
    }
}

// One test at a time: the peer is a Python process, and a QUIC handshake racing TCP against it while another test
// downloads megabytes from it could lose the race it would win on any idle server.
@Suite("HTTP/3 over QUIC, against hypercorn on 127.0.0.1", .serialized)
struct HTTP3Tests {
    /// What the QUIC peer (or the TCP-only one) logged of the requests tagged `tag`.
    static func log(_ tag: String, tcpOnly: Bool = false) async throws -> [Logged] {
        let peer = try await (tcpOnly ? Peers.tcpOnly : Peers.quic).value
        let client = RestingClient(
            baseUrl: peer.baseURL, httpClient: try Peers.transport(.http2OverTLS, trusting: tcpOnly ? "tcp" : "quic"))
        return try await client.call(Endpoint(.get, "/log"), query: [URLQueryItem(name: "tag", value: tag)])
    }

    @Test(
        "the events of two calls over HTTP/3: the first opens a QUIC connection (its handshake is the connect and TLS phases), the second reuses it"
    )
    func eventsOverHTTP3() async throws {
        let events = Events()
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http3Only),
            eventListener: .shared(events))
        for _ in 0..<2 {
            let _: Heard = try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "events")])
        }
        let connections = events.connections
        try #require(connections.count == 2)
        #expect(connections.map(\.protocolVersion) == ["3", "3"])
        #expect(connections.map(\.reused) == [false, true])
        let opened = connections[0]
        #expect(opened.connect.map { $0 > .zero } == true, "the QUIC handshake's time to connect: \(opened)")
        #expect(opened.tlsHandshake != nil, "TLS is QUIC's handshake: \(opened)")
        #expect(
            connections[1].connect == nil || connections[1].connect == .zero, "a reused connection has no connect phase"
        )
    }

    @Test("the libcurl of this build speaks HTTP/3")
    func libcurlSpeaksHTTP3() {
        #expect(CurlClient.libcurl.supportsHTTP3, "\(CurlClient.libcurl)")
    }

    @Test("a GET over HTTP/3 only: the server hears HTTP/3, and the response's metrics and the call's events say 3")
    func getOverHTTP3() async throws {
        let events = Events()
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http3Only),
            eventListener: .shared(events))
        let response = try await client.send(
            RestingRequest(
                endpoint: Endpoint<Nothing, Heard>(.get, "/get"), queryItems: [.init(name: "tag", value: "get")]))
        #expect(response.body == Heard(version: "3", tag: "get"))
        #expect(response.metrics?.protocolVersion == "3")
        #expect(events.protocolVersions == ["3"])
    }

    @Test("JSON and multipart bodies go over HTTP/3 whole")
    func postsOverHTTP3() async throws {
        struct Note: Codable, Sendable, Equatable {
            let title: String
            let tags: [String]
        }
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http3Only))
        let note = Note(title: "über QUIC", tags: ["h3", "json"])
        let echoed: Note = try await client.call(
            Endpoint(.post, "/echo", encoding: .json), body: note, query: [.init(name: "tag", value: "json")])
        #expect(echoed == note)

        let form = Endpoint<Note, Data>(.post, "/echo", encoding: .multipartFormData)
        let response = try await client.send(
            RestingRequest(endpoint: form, body: note, queryItems: [.init(name: "tag", value: "multipart")]))
        #expect(response.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(response.headers["X-Version"] == "3")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("name=\"title\"\r\n\r\nüber QUIC\r\n"))
        #expect(try await Self.log("multipart").map(\.version) == ["3"])
    }

    @Test("an 8 MiB body arrives whole over HTTP/3")
    func download() async throws {
        let transport = try Peers.transport(.http3Only)
        let size = 8 << 20
        let url = try #require(URL(string: try await Peers.quic.value.baseURL + "/bytes?n=\(size)&tag=bytes"))
        let response = try await transport.send(HTTPRequest(method: .get, url: url), progress: { _ in })
        let bytes = try #require(response.body.data)
        #expect(bytes.count == size)
        #expect(bytes.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
        #expect(response.metrics?.protocolVersion == "3")
    }

    @Test("many calls at once share one QUIC connection")
    func multiplexed() async throws {
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http3Only))
        let heard = try await withThrowingTaskGroup(of: Heard.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "many")])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(heard.map(\.version) == Array(repeating: "3", count: 16))
        let clients = Set(try await Self.log("many").map(\.client))
        #expect(clients.count == 1, "client ports: \(clients)")
    }

    @Test("HTTP/3 with fallback: QUIC where the server answers on UDP, TCP where its UDP port is closed")
    func fallback() async throws {
        let quic = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http3))
        let overQUIC: Heard = try await quic.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "race")])
        #expect(overQUIC.version == "3")

        let tcp = RestingClient(
            baseUrl: try await Peers.tcpOnly.value.baseURL, httpClient: try Peers.transport(.http3, trusting: "tcp"))
        let overTCP: Heard = try await tcp.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "closed")])
        #expect(overTCP.version == "2")
    }

    @Test("HTTP/3 only, where the server's UDP port is closed: the call fails typed, not over TCP")
    func onlyWithoutQUIC() async throws {
        let client = RestingClient(
            baseUrl: try await Peers.tcpOnly.value.baseURL, httpClient: try Peers.transport(.http3Only, trusting: "tcp")
        )
        await #expect {
            let _: Heard = try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "only")])
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .connectionFailed
        }
    }

    @Test("a request for HTTP/3 only, on a client for HTTP/2, goes over HTTP/3")
    func requestOverHTTP3() async throws {
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL, httpClient: try Peers.transport(.http2OverTLS))
        let first: Heard = try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "mixed")])
        #expect(first.version == "2")
        var request = RestingRequest(
            endpoint: Endpoint<Nothing, Heard>(.get, "/get"), queryItems: [.init(name: "tag", value: "mixed")])
        request.attributes.httpVersion = .http3Only
        #expect(try await client.send(request).body.version == "3")
        let last: Heard = try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "mixed")])
        #expect(last.version == "2")
    }

    @Test("Alt-Svc: an origin's first call goes over HTTP/2, and once it has advertised h3 the next go over HTTP/3")
    func discovery() async throws {
        let client = RestingClient(
            baseUrl: try await Peers.quic.value.baseURL,
            httpClient: try Peers.transport(.http2OverTLS, discovering: true))
        var versions: [String] = []
        for _ in 0..<3 {
            let heard: Heard = try await client.call(
                Endpoint(.get, "/get"), query: [.init(name: "tag", value: "altsvc")])
            versions.append(heard.version)
        }
        #expect(versions == ["2", "3", "3"])
        #expect(try await Self.log("altsvc").map(\.version) == ["2", "3", "3"])
    }

    @Test(
        "Alt-Svc kept in a file: a client that heard h3 writes it when it shuts down, and the next client's first call races QUIC and wins"
    )
    func discoveryKeptBetweenRuns() async throws {
        let base = try await Peers.quic.value.baseURL
        let file = Peers.folder.appendingPathComponent("alt-svc-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        func heard(on transport: CurlClient) async throws -> String {
            let client = RestingClient(baseUrl: base, httpClient: transport)
            let heard: Heard = try await client.call(Endpoint(.get, "/get"), query: [.init(name: "tag", value: "kept")])
            return heard.version
        }
        let first = try Peers.transport(.http2OverTLS, discovering: true, keepingIn: file)
        #expect(try await heard(on: first) == "2")
        #expect(!FileManager.default.fileExists(atPath: file), "written at shutdown, not on every answer")
        await first.shutdown(gracePeriod: nil)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let port = try #require(URL(string: base)?.port)
        #expect(text.contains("h2 127.0.0.1 \(port) h3 127.0.0.1 \(port) \""), "\(text)")
        let next = try Peers.transport(.http2OverTLS, discovering: true, keepingIn: file)
        #expect(try await heard(on: next) == "3", "the first call of the next run")
        await next.shutdown(gracePeriod: nil)
        #expect(try await Self.log("kept").map(\.version) == ["2", "3"])
    }

    @Test("Alt-Svc: an origin advertising h3 whose UDP port is closed is reached over TCP, and not raced again soon")
    func staleAdvertisement() async throws {
        let transport = try Peers.transport(.http2OverTLS, trusting: "stale", discovering: true)
        let client = RestingClient(baseUrl: try await Peers.stale.value.baseURL, httpClient: transport)
        let url = try #require(URL(string: try await Peers.stale.value.baseURL))
        let origin = try #require(Origin(url)).description
        let services = try #require(transport.alternativeServices)
        var versions: [String] = []
        var routes: [AlternativeServices.Route] = []
        for _ in 0..<3 {
            routes.append(services.peek(origin))
            let heard: Heard = try await client.call(
                Endpoint(.get, "/get"), query: [.init(name: "tag", value: "stale")])
            versions.append(heard.version)
        }
        #expect(versions == ["2", "2", "2"], "every call answered, over TCP")
        #expect(routes == [.tcp, .probe, .tcp], "the probe lost its race: not raced again for a while")
    }

    @Test("a 100 MiB body read slowly over HTTP/3 arrives whole, and the stream never holds more than its buffer")
    func slowReader() async throws {
        let size = 100 << 20
        let bufferSize = 256 * 1024
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/bytes?n=\(size)")))
        request.responseStreaming = ResponseStreaming(bufferSize: bufferSize)
        let response = try await Peers.transport(.http3Only).send(request, progress: { _ in })
        let stream = try #require(response.body.stream)
        var received = 0
        var intact = true
        var (largestChunk, mostHeld) = (0, 0)
        for try await chunk in stream {
            intact = intact && Pattern.continues(chunk, at: received)
            received += chunk.count
            largestChunk = max(largestChunk, chunk.count)
            mostHeld = max(mostHeld, stream.retainedBytes)
            // The slow reader under test, not a synchronisation.
            try await Task.sleep(for: .microseconds(200))
        }
        #expect(received == size && intact)
        #expect(mostHeld <= bufferSize + largestChunk, "held \(mostHeld) bytes for a \(bufferSize)-byte buffer")
        #expect(response.metrics?.protocolVersion == "3")
    }

    @Test("a 100 MiB upload from a file goes over HTTP/3 whole, read from disk as it is sent")
    func uploadFromDisk() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rk-h3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let size = 100 << 20
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let writer = try FileHandle(forWritingTo: file)
        for _ in 0..<(size / Pattern.block.count) { try writer.write(contentsOf: Pattern.block) }
        try writer.close()
        var request = HTTPRequest(
            method: .post, url: try #require(URL(string: try await Peers.uploads.value.baseURL + "/sink?tag=upload")),
            body: .file(file))
        request.headers["Content-Type"] = "application/octet-stream"
        let sent = Locked<Int64>(0)
        let response = try await Peers.transport(.http3Only, trusting: "uploads").send(
            request, progress: { progress in sent.withLock { $0 = max($0, progress.bytesSent) } })
        #expect(sent.withLock { $0 } == Int64(size), "progress reports every byte sent")
        let sunk = try JSONDecoder().decode(Sunk.self, from: try #require(response.body.data))
        #expect(sunk.bytes == size)
        #expect(sunk.intact)
        #expect(response.headers["X-Version"] == "3")
    }

    @Test(
        "a body from an async sequence, of no announced length, goes over HTTP/3 whole as it is produced: at once, or by a slow producer whose every pause is resumed",
        arguments: [(64, Duration.zero), (5, .milliseconds(300))])
    func uploadFromASequence(blocks: Int, pause: Duration) async throws {
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        let feeding = Task {
            for _ in 0..<blocks {
                producer.yield(Pattern.block)
                // The slow producer under test, not a synchronisation: the upload waits for it each time.
                if pause > .zero { try await Task.sleep(for: pause) }
            }
            producer.finish()
        }
        var request = HTTPRequest(
            method: .post, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/sink?tag=sequence")),
            body: .sequence(chunks, contentLength: nil), timeout: .seconds(30))
        request.headers["Content-Type"] = "application/octet-stream"
        let response = try await Peers.transport(.http3Only).send(request, progress: { _ in })
        try await feeding.value
        let sunk = try JSONDecoder().decode(Sunk.self, from: try #require(response.body.data))
        #expect(sunk.bytes == blocks * Pattern.block.count)
        #expect(sunk.intact)
        #expect(response.headers["X-Version"] == "3")
    }

    @Test("a response's trailers over HTTP/3, buffered and streamed: after the body, never among the headers")
    func trailersOverHTTP3() async throws {
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/trailers")),
            timeout: .seconds(10))
        request.headers["TE"] = "trailers"
        let transport = try Peers.transport(.http3Only)
        let buffered = try await transport.send(request, progress: { _ in })
        #expect(buffered.metrics?.protocolVersion == "3")
        #expect(buffered.body.data == Data("body".utf8))
        #expect(buffered.trailers["X-Checksum"] == "42" && buffered.headers["X-Checksum"] == nil)
        request.responseStreaming = ResponseStreaming()
        let stream = try #require(try await transport.send(request, progress: { _ in }).body.stream)
        var body = Data()
        for try await chunk in stream { body.append(chunk) }
        #expect(body == Data("body".utf8))
        #expect(stream.trailers?["X-Checksum"] == "42")
    }

    @Test(
        "an upload with trailers goes over HTTP/1.1 on a client racing QUIC (libcurl sends request trailers in HTTP/1.1's chunked framing only), and is refused, typed, on one for HTTP/3 only"
    )
    func requestTrailers() async throws {
        let url = try #require(URL(string: try await Peers.quic.value.baseURL + "/echo"))
        func upload() -> HTTPRequest {
            let chunks = AsyncStream<Data> {
                $0.yield(Data("hello".utf8))
                $0.finish()
            }
            return HTTPRequest(method: .post, url: url, body: .sequence(chunks) { ["X-Checksum": "sha256=abc"] })
        }
        let response = try await Peers.transport(.http3).send(upload(), progress: { _ in })
        #expect(response.headers["X-Version"] == "1.1" && response.body.data == Data("hello".utf8))
        await #expect {
            _ = try await Peers.transport(.http3Only).send(upload(), progress: { _ in })
        } throws: { error in
            guard case RestingError.unsupported(let feature, _) = error else { return false }
            return feature.contains("trailers")
        }
    }

    @Test("cancelling the reading task mid-body ends the HTTP/3 stream: the server sees the client go")
    func cancellationReachesTheServer() async throws {
        let tag = "cancel-\(UUID().uuidString)"
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/endless?tag=\(tag)")))
        request.responseStreaming = ResponseStreaming()
        let transport = try Peers.transport(.http3Only)
        let response = try await transport.send(request, progress: { _ in })
        let stream = try #require(response.body.stream)
        let (flowing, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            signal.yield()
            while try await iterator.next() != nil {}
        }
        // The first bytes have come: the stream is flowing when it is cancelled.
        for await _ in flowing { break }
        reader.cancel()
        _ = await reader.result
        var seen: [Logged] = []
        for _ in 0..<500 where seen.isEmpty {
            seen = try await Self.log(tag)
        }
        #expect(seen.map(\.complete) == [false], "the server never saw the client go")
    }

    /// libcurl 8 cannot pause an HTTP/3 stream (ngtcp2 has no way to close its window): a reader that stops reading
    /// leaves libcurl receiving, and holding, everything the server sends. CurlClient bounds it.
    @Test(
        "a streamed body over HTTP/3 whose reader stops: libcurl holds no more than maximumResponseSize, then the call fails typed and the server sees it go"
    )
    func stalledReaderIsBounded() async throws {
        let tag = "stalled-\(UUID().uuidString)"
        var request = HTTPRequest(
            method: .get, url: try #require(URL(string: try await Peers.quic.value.baseURL + "/endless?tag=\(tag)")))
        request.responseStreaming = ResponseStreaming()
        let limit: Int64 = 1 << 20
        let transport = try Peers.transport(.http3Only, holdingAtMost: limit)
        let response = try await transport.send(request, progress: { _ in })
        var chunks = try #require(response.body.stream).makeAsyncIterator()
        _ = try await chunks.next()
        // The reader stops here, until the server has seen the client go.
        var seen: [Logged] = []
        for _ in 0..<2_000 where seen.isEmpty { seen = try await Self.log(tag) }
        #expect(seen.map(\.complete) == [false], "the server never saw the client go")
        guard !seen.isEmpty else { return }  // the body is endless: reading on would never end
        await #expect(throws: RestingError.responseTooLarge(limit: limit)) {
            while try await chunks.next() != nil {}
        }
    }
}

extension HTTP3Tests {
    @Test(
        "a redirect from an HTTP/2 origin to an HTTP/3 one and back: each hop over its own protocol, credentials kept to their origin"
    )
    func redirects() async throws {
        let (tcpBase, quicBase) = (try await Peers.tcpOnly.value.baseURL, try await Peers.quic.value.baseURL)
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http3
        // Both peers' certificates: one file of both.
        let both = Peers.folder.appendingPathComponent("both.pem")
        let pems = try ["tcp", "quic"].map {
            try String(contentsOf: Peers.folder.appendingPathComponent("\($0)/cert.pem"), encoding: .utf8)
        }
        try pems.joined().write(to: both, atomically: true, encoding: .utf8)
        configuration.tls.caFile = both.path
        let client = RestingClient(baseUrl: tcpBase, httpClient: try CurlClient(configuration: configuration))
        let back = tcpBase + "/get?tag=redirect-back"
        let there =
            quicBase + "/redirect?tag=redirect-there&to=" + back.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
        let heard: Heard = try await client.call(
            Endpoint(.get, "/redirect"),
            query: [.init(name: "tag", value: "redirect-start"), .init(name: "to", value: there)],
            headers: ["Authorization": "Bearer h2-origin-only"])
        #expect(heard == Heard(version: "2", tag: "redirect-back"))
        let start = try await Self.log("redirect-start", tcpOnly: true)
        let middle = try await Self.log("redirect-there")
        #expect(start.map(\.version) == ["2"] && start.map(\.authorized) == [true])
        #expect(middle.map(\.version) == ["3"], "the QUIC origin's hop over HTTP/3")
        #expect(middle.map(\.authorized) == [false], "credentials stay with their origin")
    }
}

/// The server's bytes: 0x00 to 0xff over and over.
enum Pattern {
    static let block = Data((0..<65536).map { UInt8(truncatingIfNeeded: $0) })

    /// Whether `chunk` is the pattern from `offset` on (compared a block at a time: byte loops are slow in a debug
    /// build).
    static func continues(_ chunk: Data, at offset: Int) -> Bool {
        var position = 0
        while position < chunk.count {
            let start = (offset + position) % block.count
            let length = min(block.count - start, chunk.count - position)
            let from = chunk.startIndex + position
            guard chunk[from..<(from + length)] == block[start..<(start + length)] else { return false }
            position += length
        }
        return true
    }
}
