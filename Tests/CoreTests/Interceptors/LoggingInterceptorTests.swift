import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingLogging

/// Keeps what is logged.
struct CollectingLogger: RestingLogger {
    let messages = Collector<String>()
    func log(level: LogLevel, message: String) { messages.append("[\(level)] " + message) }
}

@Suite("Logging interceptor")
struct LoggingInterceptorTests {
    let stub = StubHTTPClient()
    let login = Endpoint<Credentials, Session>(.post, "/login", encoding: .json)

    struct Credentials: Codable, Sendable {
        let user: String
        let password: String
    }
    struct Session: Codable, Sendable {
        let user: String
        let token: String
    }

    private func exchange(
        level: LogLevel, status: Int = 200, redaction: RedactionPolicy = .default,
        bodyLimit: Int = 4096
    ) async throws -> [String] {
        let stub = StubHTTPClient()
        stub.register(
            .post, "/login",
            StubResponse(
                status: status, headers: ["Set-Cookie": "session=s3cr3t", "Content-Type": "application/json"],
                body: Data(#"{"user":"ann","token":"s3cr3t"}"#.utf8)))
        let logger = CollectingLogger()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [
                LoggingInterceptor(level: level, logger: logger, redaction: redaction, bodyLimit: bodyLimit)
            ])
        let request = RestingRequest(
            endpoint: login, body: Credentials(user: "ann", password: "s3cr3t"),
            headers: ["Authorization": "Bearer s3cr3t", "Cookie": "c=s3cr3t", "Proxy-Authorization": "Basic s3cr3t"],
            queryItems: [URLQueryItem(name: "access_token", value: "s3cr3t")])
        _ = try? await client.perform(request).value
        return logger.messages.all
    }

    @Test("verbose logs show both trees with every listed secret redacted")
    func verboseRedactsEverything() async throws {
        let messages = try await exchange(level: .verbose)
        #expect(messages.count == 2)
        let log = messages.joined(separator: "\n")
        #expect(!log.contains("s3cr3t"), "\(log)")
        for shown in [
            "→ POST https://api.example.com/login?access_token=<redacted>", "Authorization: <redacted>",
            "Cookie: <redacted>", "Proxy-Authorization: <redacted>", "Set-Cookie: <redacted>",
            #""password" : "<redacted>""#, #""token" : "<redacted>""#, #""user" : "ann""#, "← 200 POST",
        ] {
            #expect(log.contains(shown), "\(shown)")
        }
    }

    @Test("info logs one line per exchange; error logs only failures; none logs nothing")
    func levels() async throws {
        let info = try await exchange(level: .info)
        #expect(
            info.count == 1
                && info[0].hasPrefix("[info] ← 200 POST https://api.example.com/login?access_token=<redacted> ("))
        #expect(try await exchange(level: .error).isEmpty)
        let failed = try await exchange(level: .error, status: 500)
        #expect(failed.count == 1 && failed[0].hasPrefix("[error] ← 500 POST"))
        #expect(try await exchange(level: .none, status: 500).isEmpty)
    }

    @Test("a transport failure is logged as an error")
    func failures() async throws {
        stub.register(
            .get, "/down",
            .failure(
                .transportFailed(TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "refused"))))
        let logger = CollectingLogger()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [LoggingInterceptor(level: .error, logger: logger)])
        _ = try? await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/down", encoding: .query))
        ).value
        #expect(
            logger.messages.all.count == 1
                && logger.messages.all[0].contains("✕ GET https://api.example.com/down failed after"))
    }

    @Test("long bodies are cut and the rest counted")
    func truncation() async throws {
        let log = try await exchange(level: .verbose, bodyLimit: 10).joined(separator: "\n")
        #expect(log.contains("more bytes)"))
    }

    @Test("file and stream bodies are shown as their size, never read")
    func fileBodies() async throws {
        struct StreamBody: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                request.body = .stream(contentLength: 1234) {
                    throw RestingError.bodyUnreadable(reason: "must not be read by the logger")
                }
                return try await execution(request)
            }
        }
        /// Answers without reading the body.
        struct NoContent: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                HTTPDataResponse(status: 204, url: request.url)
            }
        }
        let logger = CollectingLogger()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [StreamBody(), LoggingInterceptor(level: .verbose, logger: logger), NoContent()])
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.put, "/blob", encoding: .json))
        ).value
        #expect(logger.messages.all.first?.contains("<streamed body, 1234 bytes>") == true)
    }
}
