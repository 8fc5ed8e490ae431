import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// Records what passes through it, under a name.
struct RecordingInterceptor: RestingInterceptor {
    let name: String
    let log: Locked<[String]>

    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        log.withLock { $0.append("\(name) request") }
        var request = request
        request.headers.add(name: "X-Passed", value: name)
        let response = try await execution(request)
        log.withLock { $0.append("\(name) response") }
        return response
    }
}

/// Calls the rest of the chain a given number of times, returning the last response.
struct RepeatingInterceptor: RestingInterceptor {
    let times: Int
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        var response = HTTPDataResponse(status: 0)
        for _ in 0..<times { response = try await execution(request) }
        return response
    }
}

@Suite("Interceptor chain")
struct InterceptorChainTests {
    let getPost = Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query)

    @Test("requests pass interceptors in array order and responses come back in reverse")
    func chainOrder() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/posts/1", try .json(samplePost))
        let log = Locked<[String]>([])
        let client = makeClient(
            stub,
            interceptors: [
                RecordingInterceptor(name: "first", log: log), RecordingInterceptor(name: "second", log: log),
            ])
        _ = try await client.perform(RestingRequest(endpoint: getPost)).value
        #expect(log.withLock { $0 } == ["first request", "second request", "second response", "first response"])
        #expect(stub.received.first?.request.headers.values(for: "X-Passed") == ["first", "second"])
    }

    @Test("an interceptor can answer without calling the rest of the chain")
    func shortCircuit() async throws {
        struct CachedPost: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                HTTPDataResponse(status: 200, body: ResponseBody(try JSONEncoder().encode(samplePost)))
            }
        }
        let stub = StubHTTPClient()
        let post = try await makeClient(stub, interceptors: [CachedPost()]).perform(RestingRequest(endpoint: getPost))
            .value.body
        #expect(post == samplePost)
        #expect(stub.received.isEmpty)
    }

    @Test("an interceptor can retry, and a file body is read again from the start")
    func retryReadsTheBodyTwice() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retry-\(UUID()).bin")
        let content = Data((0..<100_000).map { UInt8($0 % 251) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        struct FileBody: RestingInterceptor {
            let file: URL
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.body = .file(file)
                return try await execution(request)
            }
        }
        let stub = StubHTTPClient()
        stub.register(.post, "/upload", .status(503), .status(201))
        let upload = Endpoint<Nothing, Nothing>(.post, "/upload", encoding: .json)
        let client = makeClient(stub, interceptors: [FileBody(file: file), RepeatingInterceptor(times: 2)])
        let response = try await client.perform(RestingRequest(endpoint: upload)).value
        #expect(response.status == 201)
        #expect(stub.received.map(\.body) == [content, content])
    }

    @Test("interceptors see every status as a response, so they can retry a 503")
    func interceptorsSeeErrorStatuses() async throws {
        struct RetryOn503: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                let response = try await execution(request)
                return response.status == 503 ? try await execution(request) : response
            }
        }
        let stub = StubHTTPClient()
        stub.register(.get, "/posts/1", .status(503), try .json(samplePost))
        let post = try await makeClient(stub, interceptors: [RetryOn503()]).perform(RestingRequest(endpoint: getPost))
            .value.body
        #expect(post == samplePost)
        #expect(stub.received.count == 2)
    }

    @Test("an interceptor can recover from a transport error")
    func recoversFromAnError() async throws {
        struct Fallback: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                do {
                    return try await execution(request)
                } catch RestingError.transportFailed {
                    return HTTPDataResponse(status: 200, body: ResponseBody(try JSONEncoder().encode(samplePost)))
                }
            }
        }
        let stub = StubHTTPClient()
        stub.register(
            .get, "/posts/1",
            .failure(
                .transportFailed(TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused"))))
        let post = try await makeClient(stub, interceptors: [Fallback()]).perform(RestingRequest(endpoint: getPost))
            .value.body
        #expect(post == samplePost)
    }

    @Test("a header with CR/LF added by an interceptor is refused before it reaches the transport")
    func headerInjectionIsRefused() async throws {
        let stub = StubHTTPClient()
        let error = await restingError {
            try await makeClient(stub, interceptors: [HeaderInjector()]).perform(RestingRequest(endpoint: getPost))
                .value
        }
        guard case .invalidHeader("X-User", _) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(stub.received.isEmpty)
    }

    @Test("a transport that does not validate requests itself never receives an invalid one")
    func theChainValidatesForTransportsThatDoNot() async throws {
        final class Recorder: HTTPClient {
            let received = Locked<[HTTPRequest]>([])
            func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
                received.withLock { $0.append(request) }
                return HTTPDataResponse(
                    status: 200, body: ResponseBody(try JSONEncoder().encode(samplePost)), url: request.url)
            }
        }
        let transport = Recorder()
        let client = RestingClient(baseUrl: baseURL, httpClient: transport, interceptors: [HeaderInjector()])
        let error = await restingError { try await client.perform(RestingRequest(endpoint: getPost)).value }
        guard case .invalidHeader("X-User", _) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(transport.received.withLock { $0.isEmpty })
        // Without the injector the same transport is reached.
        let plain = RestingClient(baseUrl: baseURL, httpClient: transport)
        #expect(try await plain.perform(RestingRequest(endpoint: getPost)).value.body == samplePost)
        #expect(transport.received.withLock { $0.count } == 1)
    }

    @Test("calling execution after intercept returned is an error that names the interceptor")
    func lateExecutionNamesTheInterceptor() async throws {
        struct Escaping: RestingInterceptor {
            let escaped: Locked<InterceptorExecution?>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                escaped.withLock { $0 = execution }
                return try await execution(request)
            }
        }
        let stub = StubHTTPClient()
        stub.register(.get, "/posts/1", try .json(samplePost))
        let escaped = Locked<InterceptorExecution?>(nil)
        _ = try await makeClient(stub, interceptors: [Escaping(escaped: escaped)]).perform(
            RestingRequest(endpoint: getPost)
        ).value
        let execution = try #require(escaped.withLock { $0 })
        // The stored execution holds the chain, which holds the interceptor, which holds the store.
        defer { escaped.withLock { $0 = nil } }
        #expect(await refusedAsMisuse(execution, naming: "Escaping"))
        #expect(stub.received.count == 1)
    }
}

/// Adds a header whose value smuggles a second header in, as a hostile or buggy interceptor might.
private struct HeaderInjector: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        var request = request
        request.headers["X-User"] = "me\r\nX-Admin: true"
        return try await execution(request)
    }
}
