import Foundation
import RestingTesting
import Testing

@testable import RestingCore

@Suite("Errors")
struct RestingErrorTests {
    @Test("every error describes itself without leaking header values or bodies")
    func descriptions() throws {
        let secret = "s3cr3t"
        let url = try #require(URL(string: "https://user:\(secret)@api.example.com/posts/1"))
        let cases: [(RestingError, String)] = [
            (.invalidURL("not a url", reason: "no scheme"), "invalid URL 'not a url': no scheme"),
            (
                .invalidPathTemplate(template: "/a/{{b", reason: "'{{' is never closed"),
                "invalid path template '/a/{{b': '{{' is never closed"
            ),
            (
                .missingPathVariable(name: "id", template: "/p/{{id}}"),
                "missing path variable 'id' for template '/p/{{id}}'"
            ),
            (
                .invalidPathVariable(name: "id", template: "/p/{{id}}", reason: "'..' is a dot segment"),
                "invalid value for path variable 'id' in template '/p/{{id}}': '..' is a dot segment"
            ),
            (
                .invalidHeader(name: "X-Token", reason: "the value contains LF"),
                "invalid header '\"X-Token\"': the value contains LF"
            ),
            (.invalidMethod("BAD METHOD"), "invalid HTTP method \"BAD METHOD\""),
            (.bodyNotAllowed(method: .get), "a GET request cannot carry a body"),
            (.encodingFailed(reason: "NaN"), "request encoding failed: NaN"),
            (.bodyUnreadable(reason: "cannot open /x"), "request body could not be read: cannot open /x"),
            (
                .transportFailed(TransportError(kind: .timedOut, code: 28, domain: "CURLcode", message: "timeout")),
                "transport failed: timedOut (CURLcode 28): timeout"
            ),
            (
                .httpError(HTTPError(status: 404, headers: ["Set-Cookie": secret], body: Data(secret.utf8), url: url)),
                "HTTP 404 from https://api.example.com/posts/1 with a 6-byte body"
            ),
            (
                .validationFailed(
                    HTTPError(status: 200, headers: [:], body: Data(secret.utf8), url: url),
                    reason: "Content-Type 'text/html' is not acceptable"),
                "validation failed for HTTP 200 from https://api.example.com/posts/1 with a 6-byte body: Content-Type 'text/html' is not acceptable"
            ),
            (
                .decodingFailed(type: "Post", underlying: CocoaError(.coderReadCorrupt), body: Data(secret.utf8)),
                "could not decode Post from a 6-byte body: "
            ),
            (.cancelled, "cancelled"),
            (.responseTooLarge(limit: 1024), "response body larger than the 1024-byte limit"),
            (
                .unsupported(feature: "client certificates", transport: "URLSessionClient"),
                "client certificates is not supported by URLSessionClient"
            ),
            (
                .interceptorMisuse(
                    interceptor: "Retry", reason: "called execution after intercept(request:execution:) had returned"),
                "interceptor Retry called execution after intercept(request:execution:) had returned"
            ),
        ]
        for (error, expected) in cases {
            #expect(error.description.hasPrefix(expected))
            #expect(!error.description.contains(secret))
        }
    }

    @Test("errorType names a failure without a URL, a value or a message: its case, kind or status")
    func errorTypes() {
        let timeout = TransportError(kind: .timedOut, code: 28, domain: "curl", message: "https://a.b/?token=x")
        #expect(RestingError.transportFailed(timeout).errorType == "timedOut")
        #expect(RestingError.httpError(HTTPError(HTTPDataResponse(status: 503))).errorType == "503")
        #expect(RestingError.invalidURL("https://a.b/?token=x", reason: "bad").errorType == "invalidURL")
        #expect(RestingError.cancelled.errorType == "cancelled")
    }

    @Test("a request prints with credentials redacted and its body summarised")
    func requestDescription() throws {
        let request = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://me:pw@api.example.com/login")),
            headers: ["Authorization": "Bearer token-123", "X-Trace": "t1"], body: .bytes(Data("password=hunter2".utf8))
        )
        #expect(
            request.description == """
                POST https://api.example.com/login
                Authorization: <redacted>
                X-Trace: t1
                <16-byte body>
                """)
    }

    @Test("a missing body file fails the call with bodyUnreadable, before anything is sent")
    func missingBodyFile() async throws {
        struct MissingFile: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.body = .file(URL(fileURLWithPath: "/nonexistent/\(UUID()).bin"))
                return try await execution(request)
            }
        }
        let stub = StubHTTPClient()
        let upload = Endpoint<Nothing, Nothing>(.put, "/upload", encoding: .json)
        let error = await restingError {
            try await makeClient(stub, interceptors: [MissingFile()]).perform(RestingRequest(endpoint: upload)).value
        }
        guard case .bodyUnreadable(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("/nonexistent/"))
    }

    @Test("a body longer than the limit cannot be collected into memory")
    func collectLimit() async {
        await #expect(throws: RestingError.self) { try await RequestBody.bytes(Data(count: 10)).collect(upTo: 5) }
    }
}
