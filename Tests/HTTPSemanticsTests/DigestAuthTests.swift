import Foundation
import RestingAuthentication
import RestingCore
import RestingServerHarness
import Testing

/// HTTP Digest (RFC 7616) against `digest_server.py`, which checks every answer with Python's own hashes, on both
/// network transports: each algorithm and protection it offers, a stale nonce, a wrong password, a granted nonce
/// reused, a body hashed for `auth-int` and one that cannot be sent twice.
@Suite("Digest authentication against a server that checks it")
struct DigestAuthTests {
    static let server = Task { try await LocalServer.start(script: script) }
    static let script = LocalServer.repository.appendingPathComponent("Tests/HTTPSemanticsTests/digest_server.py")

    struct Answer: Decodable, Equatable {
        let authenticated: Bool
        let nc: String?
    }

    struct Logged: Decodable {
        let authorization: String?
    }

    private func client(_ transport: Transport, username: String = "user", password: String = "passwd") async throws
        -> RestingClient
    {
        RestingClient(
            baseUrl: try await Self.server.value.baseURL, httpClient: try transport.networkClient,
            networkInterceptors: [ChallengeAuthInterceptor.digest(username: username, password: password)])
    }

    private func get(_ client: RestingClient, _ path: String) async throws -> Answer {
        try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, path))).value.body
    }

    /// Every `Authorization` the server received for `user` (the log is shared: tests use user names of their own).
    private func authorizations(for user: String, _ transport: Transport) async throws -> [String] {
        let url = try #require(URL(string: try await Self.server.value.baseURL + "/log"))
        let body = try await transport.networkClient.send(HTTPRequest(method: .get, url: url), progress: { _ in })
        return try JSONDecoder().decode([Logged].self, from: try await body.body.collect(upTo: 1 << 20))
            .compactMap(\.authorization).filter { $0.contains("username=\"\(user)\"") }
    }

    @Test(
        "every algorithm and protection the server offers is answered in one round trip",
        arguments: Transport.network,
        ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess", "SHA-512"])
    func everyAlgorithm(_ transport: Transport, algorithm: String) async throws {
        let (baseUrl, httpClient) = (try await Self.server.value.baseURL, try transport.networkClient)
        // snippet: digest-auth
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: httpClient,
            networkInterceptors: [ChallengeAuthInterceptor.digest(username: "user", password: "passwd")])
        // end snippet
        // A `-sess` algorithm needs a `qop` (it mixes in the client's nonce, which only goes with one).
        for qop in algorithm.hasSuffix("-sess") ? ["auth", "auth-int"] : ["auth", "auth-int", "none"] {
            let answer = try await get(client, "/digest-auth/\(qop)/user/passwd/\(algorithm)")
            #expect(answer.authenticated, "\(algorithm), qop \(qop)")
        }
    }

    @Test(
        "a granted nonce is reused with the next count, so the next call needs no challenge",
        arguments: Transport.network)
    func grantedNonceIsReused(_ transport: Transport) async throws {
        let client = try await client(transport, username: "reuse-\(transport)")
        let path = "/digest-auth/auth/reuse-\(transport)/passwd/SHA-256"
        #expect(try await get(client, path) == Answer(authenticated: true, nc: "00000001"))
        #expect(try await get(client, path) == Answer(authenticated: true, nc: "00000002"))
        #expect(try await get(client, path + "?page=2") == Answer(authenticated: true, nc: "00000003"))
    }

    @Test(
        "a streamed call is answered too: the refused response's stream is dropped, the answer's is read",
        arguments: Transport.network)
    func streamedCall(_ transport: Transport) async throws {
        let client = try await client(transport, username: "stream-\(transport)")
        let streamed = Endpoint<Nothing, ResponseBodyStream>(.get, "/digest-auth/auth/stream-\(transport)/passwd/MD5")
        let response = try await client.perform(RestingRequest(endpoint: streamed)).value
        let body = try await response.body.collect(upTo: 1 << 16)
        #expect(try JSONDecoder().decode(Answer.self, from: body) == Answer(authenticated: true, nc: "00000001"))
    }

    @Test("a stale nonce is renewed once, without counting as a refusal", arguments: Transport.network)
    func staleNonceIsRenewed(_ transport: Transport) async throws {
        let client = try await client(transport, username: "stale-\(transport)")
        let path = "/digest-auth/auth/stale-\(transport)/passwd/MD5/stale_after/1"
        #expect(try await get(client, path).authenticated)
        // The reused nonce is stale now: the server says so, and the new one is answered.
        #expect(try await get(client, path) == Answer(authenticated: true, nc: "00000001"))
    }

    @Test("a wrong password fails with the 401, after exactly one answer", arguments: Transport.network)
    func wrongPasswordFailsTyped(_ transport: Transport) async throws {
        let user = "wrong-\(transport)"
        let client = try await client(transport, username: user, password: "guess")
        do {
            _ = try await get(client, "/digest-auth/auth/\(user)/passwd/SHA-256")
            Issue.record("a wrong password was accepted")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 401)
        }
        let sent = try await authorizations(for: user, transport)
        #expect(sent.count == 1)
    }

    @Test("a user name outside ASCII goes as username*, and userhash sends its hash", arguments: Transport.network)
    func userNames(_ transport: Transport) async throws {
        let client = try await client(transport, username: "zoë", password: "passwd")
        #expect(try await get(client, "/digest-auth/auth/zo%C3%AB/passwd/SHA-256").authenticated)
        let hashed = try await self.client(transport, username: "hidden", password: "passwd")
        #expect(try await get(hashed, "/digest-auth/auth/hidden/passwd/SHA-256/userhash").authenticated)
    }

    @Test(
        "auth-int signs the body it sends again; a body that can be read once is never spent on a hash, and fails typed",
        arguments: Transport.network)
    func integrityProtection(_ transport: Transport) async throws {
        let client = try await client(transport)
        let post = Endpoint<[String: String], Answer>(
            .post, "/digest-auth/auth-int/user/passwd/SHA-256", encoding: .json)
        #expect(
            try await client.perform(RestingRequest(endpoint: post, body: ["note": "signed"])).value.body.authenticated)

        let baseUrl = try await Self.server.value.baseURL
        func onceOnly(_ path: String) throws -> HTTPRequest {
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("once".utf8))
                continuation.finish()
            }
            var request = HTTPRequest(
                method: .post, url: try #require(URL(string: baseUrl + path)),
                body: RequestBody(.sequence(RequestBodySequence(chunks, contentLength: 4))))
            request.headers["Content-Type"] = "text/plain"
            return request
        }
        // The origin granted an auth-int nonce: a single-pass upload to a route that needs no credential still goes
        // out whole, unsigned, rather than be read for a hash first.
        #expect(try await client.send(try onceOnly("/public")).status == 404)
        for route in ["/digest-auth/auth/user/passwd/MD5", "/digest-auth/auth-int/user/passwd/MD5"] {
            await #expect(throws: RestingError.requestBodyNotReplayable, "\(route)") {
                try await client.send(try onceOnly(route))
            }
        }
    }
}
