import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore

@Suite("Authentication challenges: RFC 9110's grammar, RFC 7616's Digest, and the interceptor's bounds")
struct ChallengeAuthTests {
    // MARK: The hashes Digest uses

    @Test(
        "MD5, SHA-512 and SHA-512/256 give the published digests, across block boundaries",
        arguments: [
            (
                "", "d41d8cd98f00b204e9800998ecf8427e", "cf83e1357eefb8bdf1542850d66d8007",
                "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a"
            ),
            (
                "abc", "900150983cd24fb0d6963f7d28e17f72", "ddaf35a193617abacc417349ae204131",
                "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"
            ),
            (
                String(repeating: "a", count: 200), "887f30b43b2867f4a9accceee7d16e6c",
                "4b11459c33f52a22ee8236782714c150", "19b1e37317d7fd3d7651f397005e31f154ef4912d1345743d2d5889aaca28996"
            ),
        ])
    func hashes(_ input: String, md5: String, sha512Prefix: String, sha512Truncated256: String) {
        let data = Data(input.utf8)
        #expect(MD5.hex(data) == md5)
        #expect(SHA512.hex(data).hasPrefix(sha512Prefix))
        #expect(SHA512.hex(data).count == 128)
        #expect(SHA512.hex(data, variant: .sha512Truncated256) == sha512Truncated256)
    }

    // MARK: Parsing challenges

    @Test("RFC 9110's example: two challenges in one field, a quoted string with escapes, a scheme's case")
    func rfcExample() throws {
        let challenges = try #require(
            AuthenticationChallenge.parse(
                #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#))
        #expect(
            challenges == [
                AuthenticationChallenge(
                    scheme: "Newauth", parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#]),
                AuthenticationChallenge(scheme: "Basic", parameters: ["realm": "simple"]),
            ])
        #expect(challenges[1].hasScheme("BASIC"))
        #expect(challenges[0]["TITLE"] == #"Login to "apps""#)
    }

    @Test("token68, bare schemes, empty list elements and spaces around '=' are read; fields add up")
    func listForms() {
        #expect(
            AuthenticationChallenge.parse("Basic dXNlcjpwYXNz==, , Bearer") == [
                AuthenticationChallenge(scheme: "Basic", token68: "dXNlcjpwYXNz=="),
                AuthenticationChallenge(scheme: "Bearer"),
            ])
        #expect(
            AuthenticationChallenge.parse("Digest realm = \"r\" ,nonce=n") == [
                AuthenticationChallenge(scheme: "Digest", parameters: ["realm": "r", "nonce": "n"])
            ])
        let headers: HTTPHeaderFields = [
            "WWW-Authenticate": "Digest realm=\"a\", nonce=\"1\"", "www-authenticate": "Basic realm=\"b\"",
        ]
        #expect(AuthenticationChallenge.challenges(in: headers).map(\.scheme) == ["Digest", "Basic"])
    }

    @Test(
        "a malformed field gives no challenge",
        arguments: [
            "Digest realm=\"unterminated", "Digest realm=\"a\", realm=\"b\"", "Digest realm=\"a\" nonce=\"b\"",
            "=realm", "Digest realm=\"a\", nonce=", "Digest realm=\"a\u{1}\"", "Digest realm=\"a\\\u{0}\"",
            "Basic\"x\"",
        ])
    func malformed(_ field: String) {
        #expect(AuthenticationChallenge.parse(field) == nil)
        #expect(AuthenticationChallenge.challenges(in: ["WWW-Authenticate": field]).isEmpty)
    }

    // MARK: Digest's answer

    @Test("RFC 7616 §3.9.1's example, with MD5 and SHA-256, gives its published response")
    func rfc7616Example() async throws {
        for (algorithm, expected) in [
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
            ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ] {
            let digest = DigestAuthentication(username: "Mufasa", password: "Circle of Life") {
                "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
            }
            let challenge = AuthenticationChallenge(
                scheme: "Digest",
                parameters: [
                    "realm": "http-auth@example.org", "qop": "auth, auth-int", "algorithm": algorithm,
                    "nonce": "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
                    "opaque": "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",
                ])
            let request = HTTPRequest(
                method: .get, url: try #require(URL(string: "http://www.example.org/dir/index.html")))
            let answer = try #require(
                try await digest.authorization(answering: challenge, for: request, previousAnswers: 0))
            #expect(answer.contains(#"response="\#(expected)""#))
            #expect(
                answer.contains(#"uri="/dir/index.html""#) && answer.contains("qop=auth,")
                    && answer.contains("nc=00000001"))
            #expect(answer.contains(#"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#))
        }
    }

    @Test("calls challenged with one nonce count on from each other (nc 1, 2, 3); a new nonce counts from 1 again")
    func nonceCountGoesOn() async throws {
        let digest = DigestAuthentication(username: "u", password: "p")
        let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://example.com/")))
        func answer(nonce: String) async throws -> String {
            let challenge = AuthenticationChallenge(
                scheme: "Digest", parameters: ["realm": "r", "nonce": nonce, "qop": "auth"])
            return try #require(try await digest.authorization(answering: challenge, for: request, previousAnswers: 0))
        }
        // Two calls sent together, both challenged before either was answered: a server refusing replays must
        // see two counts.
        async let first = answer(nonce: "n1")
        async let second = answer(nonce: "n1")
        let counts = Set([try await first, try await second].map { $0.contains("nc=00000001") })
        #expect(counts == [true, false])
        #expect(try await digest.authorization(for: request)?.contains("nc=00000003") == true)
        #expect(try await answer(nonce: "n2").contains("nc=00000001"))
    }

    @Test("a challenge it cannot meet is not answered: an unknown algorithm or qop, no nonce, -sess without qop")
    func unanswerable() async throws {
        let digest = DigestAuthentication(username: "u", password: "p")
        let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://example.com/")))
        for parameters in [
            ["realm": "r", "nonce": "n", "algorithm": "SHA-1"], ["realm": "r", "nonce": "n", "qop": "auth-conf"],
            ["realm": "r"], ["realm": "r", "nonce": "n", "algorithm": "MD5-sess"],
        ] {
            let challenge = AuthenticationChallenge(scheme: "Digest", parameters: parameters)
            #expect(try await digest.authorization(answering: challenge, for: request, previousAnswers: 0) == nil)
        }
        let stale = AuthenticationChallenge(
            scheme: "Digest", parameters: ["realm": "r", "nonce": "n2", "stale": "true"])
        #expect(try await digest.authorization(answering: stale, for: request, previousAnswers: 2) == nil)
        let fresh = AuthenticationChallenge(scheme: "Digest", parameters: ["realm": "r", "nonce": "n2"])
        #expect(try await digest.authorization(answering: fresh, for: request, previousAnswers: 1) == nil)

        // auth-int holds the body in memory to hash it: not one of unknown length, nor one past 16 MiB.
        let integrity = AuthenticationChallenge(
            scheme: "Digest", parameters: ["realm": "r", "nonce": "n", "qop": "auth-int"])
        var upload = HTTPRequest(method: .post, url: try #require(URL(string: "https://example.com/upload")))
        upload.body = .stream(contentLength: nil) { UnreadBodyReader() }
        #expect(try await digest.authorization(answering: integrity, for: upload, previousAnswers: 0) == nil)
        upload.body = .stream(contentLength: 16 << 20 + 1) { UnreadBodyReader() }
        #expect(try await digest.authorization(answering: integrity, for: upload, previousAnswers: 0) == nil)
        upload.body = .bytes(Data("small".utf8))
        #expect(try await digest.authorization(answering: integrity, for: upload, previousAnswers: 0) != nil)
    }

    // MARK: The interceptor

    @Test("a server that always says stale gets a bounded number of answers, then the caller gets its 401")
    func answersAreBounded() async throws {
        let sent = Collector<String?>()
        let transport = ClosureHTTPClient { request in
            sent.append(request.headers["Authorization"])
            return HTTPDataResponse(
                status: 401,
                headers: ["WWW-Authenticate": "Digest realm=\"r\", nonce=\"\(UUID())\", qop=\"auth\", stale=true"])
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            networkInterceptors: [ChallengeAuthInterceptor.digest(username: "u", password: "p")])
        await #expect(throws: RestingError.self) {
            try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/"))).value
        }
        #expect(sent.all.count == 3)  // the first, one answer, one stale renewal
        #expect(sent.all.dropFirst().allSatisfy { $0?.hasPrefix("Digest ") == true })
    }

    @Test("the Authorization is sensitive, and a challenge from an origin a redirect led to is not answered")
    func otherOriginsAreNotAnswered() async throws {
        let sent = Collector<HTTPRequest>()
        let transport = ClosureHTTPClient { request in
            sent.append(request)
            if request.url.host == "api.example.com" {
                if request.url.path == "/moved" {
                    return HTTPDataResponse(status: 302, headers: ["Location": "https://evil.example.net/b"])
                }
                if request.headers["Authorization"] != nil { return HTTPDataResponse(status: 200) }
                return HTTPDataResponse(
                    status: 401, headers: ["WWW-Authenticate": "Digest realm=\"r\", nonce=\"n\", qop=\"auth\""])
            }
            return HTTPDataResponse(
                status: 401, headers: ["WWW-Authenticate": "Digest realm=\"evil\", nonce=\"n\", qop=\"auth\""])
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            networkInterceptors: [ChallengeAuthInterceptor.digest(username: "u", password: "p")])
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/a"))).value
        #expect(sent.all.last?.headers.first(where: { $0.name == "Authorization" })?.isSensitive == true)
        // Redirected to another origin: its challenge is the caller's 401, answered with nothing.
        await #expect(throws: RestingError.self) {
            try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/moved"))).value
        }
        let evil = sent.all.filter { $0.url.host == "evil.example.net" }
        #expect(evil.count == 1 && evil.allSatisfy { $0.headers["Authorization"] == nil })
    }
}

/// A reader that is never read: the bodies above are refused before any byte is.
private final class UnreadBodyReader: RequestBodyReader {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int { 0 }
    func close() {}
}
