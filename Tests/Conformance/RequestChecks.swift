import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

extension TransportConformance {
    /// Every standard method, and a custom one, reaches the server as sent.
    public func methods() async throws {
        for method: RequestMethod in [.get, .post, .put, .patch, .delete, .options, "PURGE"] {
            let echoed = try await echo(HTTPRequest(method: method, url: url("/echo/method")))
            #expect(echoed.method == method.rawValue, "\(name): \(method)")
        }
        let head = try await send(HTTPRequest(method: .head, url: url("/echo/method")))
        #expect(head.status == 200 && head.body.isEmpty, "\(name): HEAD has no body")
    }

    /// Request headers arrive in order, with repeats; names keep their case where the transport can.
    public func requestHeaders() async throws {
        var headers: HTTPHeaderFields = ["X-First": "1", "x-second-lower": "2"]
        headers.add(name: "X-Repeat", value: "a")
        headers.add(name: "X-Repeat", value: "b")
        let echoed = try await echo(HTTPRequest(method: .get, url: url("/echo"), headers: headers))
        let names = echoed.headers.map { $0[0] }
        if capabilities.preservesRequestHeaderCase {
            #expect(names.contains("X-First") && names.contains("x-second-lower"), "\(name): \(names)")
            #expect(echoed.values(of: "X-Repeat") == ["a", "b"], "\(name)")
            let order = ["X-First", "x-second-lower", "X-Repeat"].compactMap { names.firstIndex(of: $0) }
            #expect(order == order.sorted(), "\(name): headers keep their order")
        } else {
            #expect(echoed.values(of: "x-first") == ["1"] && echoed.values(of: "X-SECOND-LOWER") == ["2"], "\(name)")
            #expect(
                echoed.values(of: "x-repeat").joined(separator: ",").replacingOccurrences(of: " ", with: "") == "a,b",
                "\(name)")
        }
    }

    /// Bodies of 0 B, 1 B and 1 MiB, from memory and from a file, arrive byte for byte; sending the same request
    /// twice (a retry) reads its body again from the start.
    public func requestBodies() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for size in [0, 1, 1024 * 1024] {
            let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let file = directory.appendingPathComponent("\(size).bin")
            try content.write(to: file)
            for body in [RequestBody.bytes(content), .file(file)] {
                let request = HTTPRequest(method: .put, url: try url("/echo/body"), body: body)
                for attempt in 1...2 {
                    let echoed = try await echo(request)
                    #expect(echoed.bodyLength == size, "\(name): \(size) bytes, attempt \(attempt)")
                    #expect(echoed.bodySHA256 == SHA256.hex(content), "\(name): \(size) bytes, attempt \(attempt)")
                }
            }
        }
    }

    /// Framing is the transport's alone: a caller's `Content-Length`, `Transfer-Encoding` or `Expect` never
    /// reaches the server, so the length it reads always matches the bytes that follow.
    public func framingHeaders() async throws {
        var headers = HTTPHeaderFields()
        headers.add(name: "Content-Length", value: "2")
        headers.add(name: "Transfer-Encoding", value: "chunked")
        headers.add(name: "Expect", value: "100-continue")
        let body = Data("hello, smuggler".utf8)
        let echoed = try await echo(HTTPRequest(method: .post, url: url("/echo"), headers: headers, body: .bytes(body)))
        #expect(
            echoed.bodyLength == body.count && echoed.body == "hello, smuggler",
            "\(name): \(echoed.bodyLength) bytes arrived")
        #expect(
            echoed.values(of: "Content-Length") == ["\(body.count)"], "\(name): \(echoed.values(of: "Content-Length"))")
        #expect(echoed.values(of: "Transfer-Encoding").isEmpty && echoed.values(of: "Expect").isEmpty, "\(name)")
    }

    /// A request no server should see — CR/LF or a bad name in a header, a method that is not a token, a body
    /// on a `GET` — fails with its typed error before anything is sent.
    public func invalidRequests() async throws {
        let target = try url("/echo")
        var injected = HTTPHeaderFields()
        injected.add(name: "X-Injected", value: "a\r\nX-Smuggled: b")
        var badName = HTTPHeaderFields()
        badName.add(name: "Bad Name:", value: "x")
        let cases: [(String, HTTPRequest, (RestingError) -> Bool)] =
            [
                (
                    "CR/LF in a header value", HTTPRequest(method: .get, url: target, headers: injected),
                    {
                        if case .invalidHeader = $0 { true } else { false }
                    }
                ),
                (
                    "a header name with a space and a colon", HTTPRequest(method: .get, url: target, headers: badName),
                    {
                        if case .invalidHeader = $0 { true } else { false }
                    }
                ),
                (
                    "a method that is not a token", HTTPRequest(method: "GET /admin", url: target),
                    {
                        if case .invalidMethod = $0 { true } else { false }
                    }
                ),
                (
                    "a body on a GET", HTTPRequest(method: .get, url: target, body: .bytes(Data("x".utf8))),
                    {
                        if case .bodyNotAllowed = $0 { true } else { false }
                    }
                ),
            ]
            + [
                "file:///etc/passwd", "gopher://127.0.0.1:\(server.port)/", "dict://127.0.0.1:\(server.port)/",
                "ftp://127.0.0.1/", "http:127.0.0.1:\(server.port)/",
            ].map { link in
                (
                    "a \(link) URL", HTTPRequest(method: .get, url: URL(string: link)!),
                    {
                        if case .invalidURL = $0 { true } else { false }
                    }
                )
            }
        for (label, request, isExpected) in cases {
            let error = await failure { try await send(request) }
            #expect(error.map(isExpected) == true, "\(name): \(label) gave \(String(describing: error))")
        }
    }

    /// A timeout of any size — a century, `Int64.max` seconds — is accepted and simply never fires; nothing
    /// overflows converting it.
    public func hugeTimeouts() async throws {
        let forever = Duration.seconds(Int64.max)
        let transport = try makeTransport(
            Settings(idleTimeout: forever, connectTimeout: capabilities.opensConnections ? forever : nil))
        for timeout in [forever, .seconds(Int64.max / 1000 + 1), .seconds(100 * 365 * 24 * 3600)] {
            let response = try await send(
                HTTPRequest(method: .get, url: url("/bytes/10"), timeout: timeout), on: transport)
            #expect(response.status == 200 && response.body.data?.count == 10, "\(name): timeout \(timeout)")
        }
    }

    /// Many requests at once all complete.
    public func concurrentRequests(count: Int = 1000) async throws {
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                let request = HTTPRequest(method: .get, url: try url("/bytes/\(index % 100)"))
                group.addTask { try await send(request).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 }, "\(name)")
    }
}
