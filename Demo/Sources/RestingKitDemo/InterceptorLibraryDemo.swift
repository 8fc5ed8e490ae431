import Foundation
import RestingKit

/// Prints log lines indented under the demo's sections.
struct IndentedLogger: RestingLogger {
    func log(level: LogLevel, message: String) {
        print(
            message.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
        )
    }
}

/// Hands out an expired token first, and fetches a fresh one from image_server when it is rejected.
struct DemoTokens: CredentialProvider {
    struct Token: Decodable, Sendable { let token: String }
    let tokenClient: RestingClient

    func credential() async throws -> String { "Bearer expired-token" }

    func refreshedCredential(after rejected: String) async throws -> String {
        let issue = Endpoint<Nothing, Token>(.post, "/auth/token", encoding: .json)
        let token = try await tokenClient.perform(RestingRequest(endpoint: issue)).value.body.token
        print("    refreshed the credential: \(token)")
        return "Bearer \(token)"
    }
}

extension Demo {
    struct Attempts: Decodable, Sendable { let attempts: Int }
    struct Me: Decodable, Sendable { let user: String }

    func interceptorLibrary() async throws {
        section("8. The interceptor library: logging with redaction, retry with backoff, auth refresh")
        let verbose = client(interceptors: [LoggingInterceptor(level: .verbose, logger: IndentedLogger())])
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query)
        print("  Verbose logging: the token in the header and in the query never appears")
        _ = try await verbose.perform(
            RestingRequest(
                endpoint: getPost, headers: ["Authorization": "Bearer s3cr3t"], pathVariables: ["id": 1],
                queryItems: [URLQueryItem(name: "access_token", value: "s3cr3t")])
        ).value

        // Every retry is an event of its call: the client's listener hears them.
        let retries = EventListenerFactory.shared { event in
            if case .retryScheduled(let attempt, let delay, _) = event.kind {
                let milliseconds =
                    delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
                print("    retry: attempt \(attempt) in \(milliseconds) ms")
            }
        }
        let retrying = client(
            interceptors: [RetryInterceptor(), LoggingInterceptor(level: .info, logger: IndentedLogger())],
            events: retries)
        let flaky = Endpoint<Nothing, Attempts>(.get, "/flaky/{{key}}?failures=2", encoding: .query)
        print("  Retry: /flaky fails twice with 503, then answers")
        let attempts = try await retrying.perform(
            RestingRequest(endpoint: flaky, pathVariables: ["key": UUID().uuidString])
        ).value.body.attempts
        try check(attempts == 3, "the third attempt should succeed")
        print("  Retry-After: /retry-after asks for 1 s")
        let later = Endpoint<Nothing, Attempts>(.get, "/retry-after/{{key}}?seconds=1", encoding: .query)
        _ = try await retrying.perform(RestingRequest(endpoint: later, pathVariables: ["key": UUID().uuidString])).value

        print("  Auth: the first token is rejected with 401, refreshed once, and the request sent again")
        let auth = AuthInterceptor(provider: DemoTokens(tokenClient: client()))
        let authed = client(interceptors: [auth, LoggingInterceptor(level: .info, logger: IndentedLogger())])
        let me = try await authed.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Me>(.get, "/auth/me", encoding: .query))
        ).value.body
        print("  signed in as \(me.user)")
    }
}
