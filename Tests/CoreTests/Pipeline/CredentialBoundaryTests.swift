import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore

/// The rule the last link of every chain enforces, and the marks it reads, without sockets.
@Suite("Credential boundary")
struct CredentialBoundaryUnitTests {
    let api = URL(string: "https://api.example.com/v1/items")!
    let other = URL(string: "https://cdn.example.net/file")!

    func enforced(_ request: HTTPRequest) throws -> HTTPRequest {
        var request = request
        try CredentialBoundary.enforce(on: &request)
        return request
    }

    @Test("a credential without an origin of its own belongs to the call's: kept there, dropped anywhere else")
    func callOrigin() throws {
        var request = HTTPRequest(method: .get, url: api, headers: ["Authorization": "Bearer t", "Accept": "*/*"])
        request.headers.add(name: "X-Tenant", value: "secret", sensitive: true)
        #expect(try enforced(request).headers == request.headers, "the call's own origin receives everything")
        request.url = other
        #expect(try enforced(request).headers.map(\.name) == ["Accept"], "another origin receives no credential")
        request.url = URL(string: "http://api.example.com/v1/items")!
        #expect(try enforced(request).headers.map(\.name) == ["Accept"], "nor does the same host over plain HTTP")
    }

    /// Trailers with an API key, a field marked sensitive and a checksum.
    static let signedTrailers: @Sendable () -> HTTPHeaderFields = {
        var fields: HTTPHeaderFields = ["X-Api-Key": "k", "X-Checksum": "c"]
        fields.add(name: "X-Signature", value: "s", sensitive: true)
        return fields
    }

    @Test("a body's trailer section keeps its credentials within the call's origin, like the header section")
    func trailers() throws {
        var request = HTTPRequest(method: .post, url: api)
        request.body = RequestBody.sequence(OneChunk(), trailers: Self.signedTrailers)
        let sameOrigin = try #require(try enforced(request).body.trailers)
        #expect(sameOrigin().map(\.name) == ["X-Api-Key", "X-Checksum", "X-Signature"])
        request.url = other
        let otherOrigin = try #require(try enforced(request).body.trailers)
        #expect(otherOrigin().map(\.name) == ["X-Checksum"])
    }

    @Test("after a 307 to another origin, the trailers that reach the transport carry no credential")
    func trailersAcrossARedirect() async throws {
        let sent = Locked<[String: [String]]>([:])
        let transport = ClosureHTTPClient { request in
            _ = try await request.body.collect()
            let names: [String] = request.body.trailers?().map(\.name) ?? []
            let host = request.url.host ?? ""
            sent.withLock { $0[host] = names }
            guard host == "api.example.com" else { return HTTPDataResponse(status: 204, url: request.url) }
            let headers: HTTPHeaderFields = ["Location": "https://cdn.example.net/upload"]
            return HTTPDataResponse(status: 307, headers: headers, url: request.url)
        }
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
        let upload = Endpoint<RequestBody, Nothing>(.post, "/upload", encoding: .raw(contentType: "text/plain"))
        let body = RequestBody.sequence(OneChunk(), iteration: .multiple, trailers: Self.signedTrailers)
        _ = try await client.send(RestingRequest(endpoint: upload, body: body))
        let seen = sent.withLock { $0 }
        #expect(seen["api.example.com"] == ["X-Api-Key", "X-Checksum", "X-Signature"])
        #expect(seen["cdn.example.net"] == ["X-Checksum"])
    }

    @Test("a WebSocket's offered subprotocols may carry a token: kept within the call's origin, redacted in logs")
    func subprotocolToken() throws {
        let token = "base64url.bearer.authorization.k8s.io.c2VjcmV0"
        var request = HTTPRequest(
            method: .get, url: api, headers: ["Sec-WebSocket-Protocol": "v4.channel.k8s.io, \(token)"])
        #expect(try enforced(request).headers["Sec-WebSocket-Protocol"] != nil)
        request.url = other
        #expect(try enforced(request).headers["Sec-WebSocket-Protocol"] == nil)
        #expect(request.headers.allSatisfy { !RedactionPolicy.default.value(ofHeader: $0).contains(token) })
    }

    @Test("a credential bound to a site goes to that site only, whatever the call's origin")
    func boundFields() throws {
        var request = HTTPRequest(method: .get, url: api)
        request.url = other
        request.headers.add(name: "Cookie", value: "cdn=1", sensitive: true, origin: Origin(other))
        request.headers.add(name: "Authorization", value: "Bearer t")
        #expect(try enforced(request).headers.map(\.name) == ["Cookie"])
    }

    @Test("the call's origin is the URL it was made with, kept when the URL changes, moved only on purpose")
    func credentialOrigin() throws {
        var request = HTTPRequest(method: .get, url: api)
        #expect(request.credentialOrigin == Origin(api))
        request.url = other
        #expect(request.credentialOrigin == Origin(api))
        request.credentialOrigin = Origin(other)
        request.headers["Authorization"] = "Bearer t"
        #expect(try enforced(request).headers["Authorization"] == "Bearer t")
    }

    @Test("a URL without an origin receives no credential at all")
    func noOrigin() throws {
        let request = HTTPRequest(
            method: .get, url: URL(string: "file:///etc/passwd")!, headers: ["Authorization": "Bearer t"])
        #expect(try enforced(request).headers.isEmpty)
    }

    @Test("the URL's user-info goes to the call's own origin, and is taken out of a URL of any other")
    func userInfo() throws {
        var request = HTTPRequest(method: .get, url: URL(string: "https://svc:pw@api.example.com/v1?q=1#f")!)
        #expect(try enforced(request).url == request.url, "its own origin receives it")
        request.url = URL(string: "https://svc:pw@cdn.example.net/file?q=1")!
        #expect(try enforced(request).url == URL(string: "https://cdn.example.net/file?q=1")!)
        request.url = URL(string: "http://svc@api.example.com/v1")!
        #expect(
            try enforced(request).url == URL(string: "http://api.example.com/v1")!, "another scheme is another origin")
    }

    @Test(
        "a URL relative to a base with user-info, of another origin, keeps its base's address and loses the user-info")
    func userInfoOfARelativeURLsBase() throws {
        var request = HTTPRequest(method: .get, url: api)
        request.url = try #require(
            URL(string: "file?q=1", relativeTo: URL(string: "https://svc:pw@cdn.example.net/v2/")))
        let sent = try enforced(request).url
        #expect(sent.absoluteString == "https://cdn.example.net/v2/file?q=1")
        #expect(sent.user == nil && sent.password == nil)
    }

    @Test(
        "the tokens of GitLab, Vault and Shopify stay within the call's origin, and are redacted in logs",
        arguments: ["PRIVATE-TOKEN", "JOB-TOKEN", "X-Gitlab-Token", "X-Vault-Token", "X-Shopify-Access-Token"])
    func serviceTokens(name: String) throws {
        var request = HTTPRequest(method: .get, url: api, headers: [name: "glpat-secret", "Accept": "*/*"])
        #expect(try enforced(request).headers[name] == "glpat-secret")
        request.url = other
        #expect(try enforced(request).headers.map(\.name) == ["Accept"])
        #expect(!request.description.contains("glpat-secret"))
    }

    @Test("a credential's name spelled with a non-ASCII look-alike (the Kelvin sign) is a credential, and is not sent")
    func credentialNameLookAlike() async throws {
        #expect(HTTPHeaderFields.Field(name: "Coo\u{212A}ie", value: "c=1").carriesCredential)
        // U+212A KELVIN SIGN lowercases to "k" (the offline queue and the cache keep it out), but no such name is a
        // token: the chain refuses it before it is sent.
        let seen = Collector<HTTPRequest>()
        let transport = ClosureHTTPClient { request in
            seen.append(request)
            return HTTPDataResponse(status: 200, url: request.url)
        }
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
        let lookAlike = RestingRequest(
            endpoint: Endpoint<Nothing, Data>(.get, "/a", encoding: .query), headers: ["Coo\u{212A}ie": "c=1"])
        let refusal = RestingError.invalidHeader(name: "Coo\u{212A}ie", reason: "the name is not a valid HTTP token")
        await #expect(throws: refusal) { try await client.perform(lookAlike).value }
        #expect(seen.all.isEmpty)
    }

    @Test("#7 sensitivity sticks to a name however it is set again: subscript, replaceOrAdd, remove and add")
    func stickySensitivity() throws {
        var headers = HTTPHeaderFields()
        headers.add(name: "X-Tenant-Secret", value: "one", sensitive: true)
        headers["x-tenant-secret"] = "two"
        #expect(headers.allSatisfy { $0.isSensitive })
        headers.replaceOrAdd(name: "X-TENANT-SECRET", value: "three")
        #expect(headers.allSatisfy { $0.isSensitive })
        headers.remove(name: "X-Tenant-Secret")
        headers.add(name: "X-Tenant-Secret", value: "four")
        #expect(headers.allSatisfy { $0.isSensitive })
        #expect(!headers.description.contains("four"))
        var request = HTTPRequest(method: .get, url: api, headers: headers)
        request.headers["X-Tenant-Secret"] = "five"
        #expect(!request.description.contains("five") && !request.cURLDescription().contains("five"))
        request.url = other
        #expect(try enforced(request).headers.isEmpty, "and it stays within its origin")
    }

    @Test("#7 a request's own header over a provider's sensitive one of the same name stays sensitive")
    func requestHeaderOverProviderKeepsTheMark() throws {
        let provider = RestingHeaderProvider()
        provider.addHeader(key: "X-Tenant-Secret", value: "from-provider", sensitive: true)
        let converter = RestingRequestConverter(configuration: .init(headerProvider: provider))
        let endpoint = Endpoint<Nothing, Data>(.get, "/items", encoding: .query)
        let request = try converter.toHTTPRequest(
            RestingRequest(endpoint: endpoint, headers: ["X-Tenant-Secret": "per-request"]),
            baseUrl: "https://api.example.com")
        #expect(request.headers.first { $0.name == "X-Tenant-Secret" }?.isSensitive == true)
        #expect(!request.description.contains("per-request"))
    }

    @Test("a chain's network interceptor that re-adds a token on a hop to another origin sends it nowhere")
    func networkInterceptorOnAnotherOrigin() async throws {
        let seen = Collector<HTTPRequest>()
        let transport = ClosureHTTPClient { request in
            seen.append(request)
            guard request.url.host == "api.example.com" else { return HTTPDataResponse(status: 200, url: request.url) }
            return HTTPDataResponse(status: 302, headers: ["Location": "https://elsewhere.example.org/landing"])
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            networkInterceptors: [AuthInterceptor.bearer(token: "t")])
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/a", encoding: .query)))
            .value
        #expect(seen.all.map { $0.headers["Authorization"] } == ["Bearer t", nil])
    }
}

/// One chunk, `body`, each time it is iterated: a sequence a redirect can send again.
struct OneChunk: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        var sent = false
        mutating func next() async -> Data? {
            defer { sent = true }
            return sent ? nil : Data("body".utf8)
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
