#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import RestingAuthentication
import RestingCache
import RestingCore
import RestingCurl
import RestingOpenAPI
import RestingServerHarness
import RestingStreaming
import RestingTestSupport
import RestingTesting
import RestingURLSession
import Testing

/// Records what each request looked like when it reached it.
struct Recorder: RestingInterceptor {
    let seen = Locked<[RestingCore.HTTPRequest]>([])
    func intercept(request: RestingCore.HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        seen.withLock { $0.append(request) }
        return try await execution(request)
    }
}

/// Issues "Bearer 1", then "Bearer 2" once the first is rejected.
struct Tokens: CredentialProvider {
    let issued = Locked(1)
    func credential() async throws -> String { "Bearer \(issued.withLock { $0 })" }
    func refreshedCredential(after rejected: String) async throws -> String {
        let next = issued.withLock { issued in
            issued += 1
            return issued
        }
        return "Bearer \(next)"
    }
}

@Suite("OpenAPI: generated clients' operations through a RestingClient", .timeLimit(.minutes(5)))
struct OpenAPITransportTests {
    let stub = StubHTTPClient()
    let base = URL(string: "https://api.example.com/v1")!

    func head(_ method: HTTPTypes.HTTPRequest.Method, _ path: String) -> HTTPTypes.HTTPRequest {
        HTTPTypes.HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
    }

    @Test("an operation passes the interceptors with its operationID, under the server URL's path, with its body")
    func operationThroughTheChain() async throws {
        stub.register(.post, "/v1/posts", .status(201, headers: ["Location": "/v1/posts/7"], body: Data("{}".utf8)))
        let recorder = Recorder()
        let transport = RestingClientTransport(
            client: RestingClient(baseUrl: "https://unused.example", httpClient: stub, interceptors: [recorder]))
        var request = head(.post, "/posts?draft=true")
        request.headerFields[.contentType] = "application/json"
        let (response, body) = try await transport.send(
            request, body: HTTPBody("{\"title\":\"t\"}"), baseURL: base, operationID: "createPost")

        #expect(response.status == .created)
        #expect(response.headerFields[.location] == "/v1/posts/7")
        #expect(try await String(collecting: try #require(body), upTo: 100) == "{}")
        let sent = try #require(recorder.seen.withLock { $0.first })
        #expect(sent.attributes.operationID == "createPost")
        #expect(sent.url.absoluteString == "https://api.example.com/v1/posts?draft=true")
        #expect(stub.received.first?.body == Data("{\"title\":\"t\"}".utf8))
    }

    @Test("an empty body is no body: a GET handed HTTPBody() is sent, not refused for carrying one")
    func emptyBodyIsNoBody() async throws {
        stub.register(.get, "/v1/posts", .status(200, body: Data("[]".utf8)))
        let transport = RestingClientTransport(
            client: RestingClient(baseUrl: "https://unused.example", httpClient: stub))
        let (response, _) = try await transport.send(
            head(.get, "/posts"), body: HTTPBody(), baseURL: base, operationID: "listPosts")
        #expect(response.status == .ok)
        #expect(stub.received.first?.body == Data())
    }

    @Test("a 503 is retried, a 401 refreshes the credential, and a second GET is a cache hit")
    func retryAuthAndCache() async throws {
        stub.register(
            .get, "/v1/feed", .status(503), .status(401),
            .status(200, headers: ["Cache-Control": "max-age=60"], body: Data("feed".utf8)))
        var policy = RetryInterceptor.Policy()
        policy.baseDelay = .milliseconds(1)
        let client = RestingClient(
            baseUrl: "https://unused.example", httpClient: stub,
            interceptors: [
                RetryInterceptor(policy: policy), AuthInterceptor(provider: Tokens()),
                HTTPCacheInterceptor(store: MemoryCacheStore()),
            ])
        let transport = RestingClientTransport(client: client)
        for _ in 0..<2 {
            let (response, body) = try await transport.send(
                head(.get, "/feed"), body: nil, baseURL: base, operationID: "getFeed")
            #expect(response.status == .ok)
            #expect(try await String(collecting: try #require(body), upTo: 100) == "feed")
        }
        #expect(stub.received.map { $0.request.headers["Authorization"] } == ["Bearer 1", "Bearer 1", "Bearer 2"])
    }

    @Test("over both transports the response body streams: the first part is read before the server sends the next")
    func streamsAsItArrives() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let release = RestingClient(baseUrl: server.baseURL, httpClient: URLSessionClient.shared)
        for httpClient in [try CurlClient() as any HTTPClient, URLSessionClient(configuration: .ephemeral)] {
            let transport = RestingClientTransport(
                client: RestingClient(baseUrl: server.baseURL, httpClient: httpClient))
            let tag = UUID().uuidString
            let (response, body) = try await transport.send(
                head(.get, "/gated?tag=\(tag)&count=2"), body: nil, baseURL: try #require(URL(string: server.baseURL)),
                operationID: "gated")
            #expect(response.status == .ok)
            var chunks = try #require(body).makeAsyncIterator()
            let first = try await chunks.next()
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "part 0\n")
            _ = try await release.send(
                RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/release?tag=\(tag)", encoding: .query)))
            var rest = ""
            while let chunk = try await chunks.next() { rest += String(decoding: chunk, as: UTF8.self) }
            #expect(rest == "part 1\n")
        }
    }

    /// 8 MiB in 64 KiB chunks (one buffer, shared), streamed; `announced` sends its length ahead.
    func eightMiB(announced: Bool) -> StubResponse {
        let chunk = StubResponse.Chunk.data(Data(count: 64 * 1024))
        return .stream(
            Array(repeating: chunk, count: 128), headers: announced ? ["Content-Length": "\(8 << 20)"] : [:])
    }

    @Test("a body handed to generated code is held to the limit: announced past it, the call fails; streamed, the read")
    func responseBodiesAreLimited() async throws {
        stub.register(.get, "/v1/announced", eightMiB(announced: true))
        stub.register(.get, "/v1/streamed", eightMiB(announced: false))
        let transport = RestingClientTransport(
            client: RestingClient(baseUrl: "https://unused.example", httpClient: stub), maximumResponseSize: 1 << 20)
        await #expect {
            try await transport.send(head(.get, "/announced"), body: nil, baseURL: base, operationID: "announced")
        } throws: { error in
            guard case RestingError.responseTooLarge(let limit) = error else { return false }
            return limit == 1 << 20
        }
        let (_, body) = try await transport.send(head(.get, "/streamed"), body: nil, baseURL: base, operationID: "s")
        var received = 0
        await #expect {
            // What generated code does with a JSON body.
            for try await chunk in try #require(body) { received += chunk.count }
        } throws: { error in
            guard case RestingError.responseTooLarge(1 << 20) = error else { return false }
            return true
        }
        // It stopped at the first chunk past the limit, not at the body's end.
        #expect(received == 1 << 20)
    }

    @Test("the default limit is the transports' own; streaming operations, and a limit of nil, read a body whole")
    func streamingOperationsAreNotLimited() async throws {
        stub.register(.get, "/v1/events", eightMiB(announced: false), eightMiB(announced: true))
        let client = RestingClient(baseUrl: "https://unused.example", httpClient: stub)
        #expect(RestingClientTransport(client: client).maximumResponseSize == TransportDefaults.maximumResponseSize)
        for transport in [
            RestingClientTransport(client: client, maximumResponseSize: 1 << 20, streamingOperations: ["events"]),
            RestingClientTransport(client: client, maximumResponseSize: nil),
        ] {
            let (_, body) = try await transport.send(
                head(.get, "/events"), body: nil, baseURL: base, operationID: "events")
            let bytes = try await Data(collecting: try #require(body), upTo: .max)
            #expect(bytes.count == 8 << 20)
        }
    }

    /// A middleware as teams write them: adds a header, notes the operation, and reads the response head.
    struct TenantMiddleware: ClientMiddleware {
        let operations = Locked<[String]>([])
        func intercept(
            _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
            operations.withLock { $0.append(operationID) }
            var request = request
            request.headerFields[HTTPField.Name("X-Tenant")!] = "acme"
            var (response, body) = try await next(request, body, baseURL)
            response.headerFields[HTTPField.Name("X-Seen")!] = "yes"
            return (response, body)
        }
    }

    @Test("a ClientMiddleware runs as an interceptor: its header is sent, a body passes untouched, a stream streams")
    func middlewareAsInterceptor() async throws {
        stub.register(.put, "/v1/posts/1", .status(200, body: Data("saved".utf8)))
        stub.register(.get, "/v1/lines", .stream([.text("one\n"), .text("two\n")]))
        let middleware = TenantMiddleware()
        let client = RestingClient(
            baseUrl: "https://api.example.com/v1", httpClient: stub,
            interceptors: [ClientMiddlewareInterceptor(middleware)])
        var put = RestingRequest(
            endpoint: Endpoint<Data, Data>(.put, "/posts/1", encoding: .raw(contentType: "text/plain")),
            body: Data("new".utf8))
        put.attributes.operationID = "updatePost"
        let saved = try await client.perform(put).value
        #expect(saved.body == Data("saved".utf8) && saved.headers["X-Seen"] == "yes")
        #expect(stub.received.first?.request.headers["X-Tenant"] == "acme")
        #expect(stub.received.first?.body == Data("new".utf8))

        var lines: [String] = []
        let stream = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, ResponseLines>(.get, "/lines", encoding: .query))
        ).value.body
        for try await line in stream { lines.append(line) }
        #expect(lines == ["one", "two"])
        #expect(middleware.operations.withLock { $0 } == ["updatePost", ""])
    }

    @Test("a credential issued for another site stays that site's through a middleware: the boundary still drops it")
    func middlewareKeepsCredentialOrigins() async throws {
        stub.register(.get, "/v1/me", .status(200), .status(200))
        let client = RestingClient(
            baseUrl: "https://api.example.com/v1", httpClient: stub,
            interceptors: [ClientMiddlewareInterceptor(TenantMiddleware())])
        var request = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/me", encoding: .query))
        request.headers.add(
            name: "X-Other-Token", value: "for-elsewhere", sensitive: true,
            origin: Origin(URL(string: "https://elsewhere.example")!))
        request.headers.add(name: "Cookie", value: "id=1")
        let plain = RestingClient(baseUrl: "https://api.example.com/v1", httpClient: stub)
        _ = try await plain.perform(request).value
        _ = try await client.perform(request).value
        let (without, with) = (stub.received[0].request.headers, stub.received[1].request.headers)
        #expect(without["X-Other-Token"] == nil, "the boundary drops it")
        #expect(with["X-Other-Token"] == nil, "as it does without the middleware")
        #expect(with["Cookie"] == "id=1" && with["X-Tenant"] == "acme")
    }
}
#endif
