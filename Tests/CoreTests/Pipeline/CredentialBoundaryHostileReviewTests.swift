import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore

/// A hostile review of the credential boundary: every test states what the contract requires — a credential field
/// (header or body trailer; by name or marked sensitive) leaves only for its own origin (the field's, else the
/// call's) — so that a test fails where a credential reaches another origin.
@Suite("Credential boundary: hostile review")
struct CredentialBoundaryHostileReviewTests {
    static let api = URL(string: "https://api.example.com/v1/items")!
    static let cdn = URL(string: "https://cdn.example.net/file")!
    static let elsewhere = URL(string: "https://evil.example.org/steal")!

    static func enforced(_ request: HTTPRequest) throws -> HTTPRequest {
        var request = request
        try CredentialBoundary.enforce(on: &request)
        return request
    }

    /// `name=value` of every trailer field the transport would send, or `nil` when the body has no trailers.
    static func trailers(of request: HTTPRequest) -> [String]? {
        request.body.trailers.map { make in make().map { "\($0.name)=\($0.value)" } }
    }

    static func fields(_ headers: HTTPHeaderFields) -> [String] { headers.map { "\($0.name)=\($0.value)" } }

    // MARK: - The boundary on its own

    @Test("headers and trailers bound to different origins, with duplicates: each field goes to its own origin only")
    func headersAndTrailersBoundToDifferentOrigins() throws {
        var request = HTTPRequest(method: .post, url: Self.api)
        request.headers.add(name: "Authorization", value: "call")
        request.headers.add(name: "Authorization", value: "cdn", origin: Origin(Self.cdn))
        request.headers.add(name: "X-Trace", value: "t")
        request.body = .sequence(
            OneChunk(),
            trailers: {
                var fields = HTTPHeaderFields()
                fields.add(name: "X-Api-Key", value: "call")
                fields.add(name: "x-AMZ-security-TOKEN", value: "cdn", origin: Origin(Self.cdn))
                fields.add(name: "X-Signature", value: "api-bound", sensitive: true, origin: Origin(Self.api))
                fields.add(name: "X-Checksum", value: "c")
                return fields
            })

        let atAPI = try Self.enforced(request)
        #expect(Self.fields(atAPI.headers) == ["Authorization=call", "X-Trace=t"])
        #expect(Self.trailers(of: atAPI) == ["X-Api-Key=call", "X-Signature=api-bound", "X-Checksum=c"])

        request.url = Self.cdn
        let atCDN = try Self.enforced(request)
        #expect(Self.fields(atCDN.headers) == ["Authorization=cdn", "X-Trace=t"])
        #expect(Self.trailers(of: atCDN) == ["x-AMZ-security-TOKEN=cdn", "X-Checksum=c"])

        request.url = Self.elsewhere
        let atOther = try Self.enforced(request)
        #expect(Self.fields(atOther.headers) == ["X-Trace=t"])
        #expect(Self.trailers(of: atOther) == ["X-Checksum=c"])
    }

    @Test("credentialOrigin set to nil: no unbound credential leaves, in headers or trailers, even for the URL itself")
    func explicitNilCredentialOrigin() throws {
        var request = HTTPRequest(
            method: .post, url: Self.api, headers: ["Authorization": "Bearer t", "Accept": "*/*"])
        request.headers.add(name: "Cookie", value: "api=1", origin: Origin(Self.api))
        request.body = .sequence(OneChunk(), trailers: { ["X-Api-Key": "k", "X-Checksum": "c"] })
        request.credentialOrigin = nil
        let sent = try Self.enforced(request)
        #expect(
            Self.fields(sent.headers) == ["Accept=*/*", "Cookie=api=1"], "only the field bound to the URL's origin")
        #expect(Self.trailers(of: sent) == ["X-Checksum=c"])
    }

    /// Destinations that are not the call's origin, by Foundation's reading and by libcurl's: no origin at all
    /// (schemes but HTTP(S), no host), user-info and fragment tricks, percent-encoded separators, a look-alike
    /// suffix, a trailing dot, another port or scheme, an out-of-range port, IPv6.
    @Test(
        "credentials in odd-case names, and an innocuous name marked sensitive, reach no odd destination",
        arguments: [
            "https:api.example.com/v1/items", "https:///v1/items", "http:/api.example.com/v1/items",
            "https://api.example.com@evil.example.org/", "https://api.example.com:443@evil.example.org/",
            "https://evil.example.org#@api.example.com", "https://evil.example.org?@api.example.com",
            "https://evil.example.org%40api.example.com/", "https://api.example.com%00.evil.example.org/",
            "https://api.example.com.evil.example.org/", "https://api.example.com./", "https://api.example.com:8443/",
            "http://api.example.com/", "http://api.example.com:443/", "https://api.example.com:4294967739/",
            "ftp://api.example.com/", "wss://api.example.com/", "file:///etc/passwd", "https://[::1]/",
            "mailto:someone@api.example.com",
        ])
    func oddDestinations(_ destination: String) throws {
        let url = try #require(URL(string: destination))
        var request = HTTPRequest(method: .post, url: Self.api)
        request.headers.add(name: "aUtHoRiZaTiOn", value: "Bearer t")
        request.headers.add(name: "COOKIE", value: "a=1")
        request.headers.add(name: "pRoXy-AuThOrIzAtIoN", value: "Basic p")
        request.headers.add(name: "Accept", value: "secret-accept", sensitive: true)
        request.headers.add(name: "X-Trace", value: "kept")
        request.body = .sequence(
            OneChunk(),
            trailers: {
                var fields: HTTPHeaderFields = ["X-API-KEY": "k", "X-Checksum": "c"]
                fields.add(name: "Digest", value: "secret-digest", sensitive: true)
                return fields
            })
        request.url = url
        let sent = try Self.enforced(request)
        #expect(Self.fields(sent.headers) == ["X-Trace=kept"], "\(destination)")
        #expect(Self.trailers(of: sent) == ["X-Checksum=c"], "\(destination)")
    }

    @Test("the boundary never asks for the trailers itself; each later ask, however many, is filtered")
    func trailersAskedManyTimes() throws {
        let asks = Locked(0)
        var request = HTTPRequest(method: .post, url: Self.api)
        request.body = .sequence(
            OneChunk(), iteration: .multiple,
            trailers: {
                asks.withLock { $0 += 1 }
                return ["X-Api-Key": "k", "X-Checksum": "c"]
            })
        request.url = Self.cdn
        // Twice, as a RestingClient over a RedirectingHTTPClient does.
        let sent = try Self.enforced(try Self.enforced(request))
        #expect(asks.withLock { $0 } == 0, "trailers are made once the body has gone, not at the boundary")
        let make = try #require(sent.body.trailers)
        for _ in 0..<3 { #expect(make().map(\.name) == ["X-Checksum"]) }
        #expect(asks.withLock { $0 } == 3)
    }

    // MARK: - Through a client

    /// A client of `baseUrl` over `transport` whose interceptors add a bearer `token`, then `rewrite` the request.
    static func client(
        _ baseUrl: String, _ transport: ClosureHTTPClient, token: String,
        rewrite: @escaping @Sendable (inout HTTPRequest) throws -> Void
    ) -> RestingClient {
        RestingClient(
            baseUrl: baseUrl, httpClient: transport,
            interceptors: [
                AuthInterceptor.bearer(token: token),
                RequestRewriter { request in
                    var request = request
                    try rewrite(&request)
                    return request
                },
            ])
    }

    @Test("an app interceptor that adds a token and then moves the call to another host sends it no credential")
    func interceptorRewritesURLAfterAddingAToken() async throws {
        let seen = Collector<(host: String, headers: [String], trailers: [String])>()
        let transport = ClosureHTTPClient { request in
            _ = try await request.body.collect()
            seen.append((request.url.host ?? "", Self.fields(request.headers), Self.trailers(of: request) ?? []))
            return HTTPDataResponse(status: 204, url: request.url)
        }
        let client = Self.client("https://api.example.com", transport, token: "s3cr3t") { request in
            request.headers.add(name: "X-Api-Key", value: "s3cr3t-key")
            request.url = URL(string: "https://mirror.example.net/upload")!
        }
        let upload = Endpoint<RequestBody, Nothing>(.post, "/upload", encoding: .raw(contentType: "text/plain"))
        let body = RequestBody.sequence(
            OneChunk(), iteration: .multiple, trailers: { ["X-Api-Key": "s3cr3t-trailer", "X-Checksum": "c"] })
        _ = try await client.send(RestingRequest(endpoint: upload, body: body))
        let hops = seen.all
        #expect(hops.map(\.host) == ["mirror.example.net"])
        #expect(hops.allSatisfy { !$0.headers.joined().contains("s3cr3t") && !$0.trailers.joined().contains("s3cr3t") })
    }

    @Test("RedirectingHTTPClient on its own: 307s to another port and to HTTP carry no credential, header or trailer")
    func redirectingClientAcrossPortAndScheme() async throws {
        let seen = Collector<(url: String, headers: [String], trailers: [String])>()
        let next = [
            "https://api.example.com/upload": "https://api.example.com:8443/upload",
            "https://api.example.com:8443/upload": "http://api.example.com/upload",
            "http://api.example.com/upload": "https://api.example.com/done",
        ]
        let transport = ClosureHTTPClient { request in
            _ = try await request.body.collect()
            let url = request.url.absoluteString
            seen.append((url, Self.fields(request.headers), Self.trailers(of: request) ?? []))
            guard let location = next[url] else { return HTTPDataResponse(status: 204, url: request.url) }
            return HTTPDataResponse(status: 307, headers: ["Location": location], url: request.url)
        }
        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/upload")!)
        request.headers.add(name: "Authorization", value: "Bearer s3cr3t")
        request.headers.add(name: "X-Tenant", value: "s3cr3t-tenant", sensitive: true)
        request.body = .sequence(
            OneChunk(), iteration: .multiple, trailers: { ["X-Api-Key": "s3cr3t-key", "X-Checksum": "c"] })
        _ = try await RedirectingHTTPClient(transport).send(request) { _ in }
        let hops = seen.all
        #expect(
            hops.map(\.url) == [
                "https://api.example.com/upload", "https://api.example.com:8443/upload",
                "http://api.example.com/upload",
                "https://api.example.com/done",
            ])
        for hop in hops where !hop.url.hasPrefix("https://api.example.com/") {
            #expect(!hop.headers.joined().contains("s3cr3t"), "\(hop.url): \(hop.headers)")
            #expect(hop.trailers == ["X-Checksum=c"], "\(hop.url)")
        }
    }

    // MARK: - Paths the review found taking a credential to another origin, closed

    @Test("the user-info of the call's URL (libcurl sends it as Authorization: Basic) stays behind a host rewrite")
    func userInfoFollowsAHostRewrite() async throws {
        let seen = Collector<(host: String, user: String?, password: String?, authorization: String?)>()
        let transport = ClosureHTTPClient { request in
            seen.append(
                (request.url.host ?? "", request.url.user, request.url.password, request.headers["Authorization"]))
            return HTTPDataResponse(status: 204, url: request.url)
        }
        let client = Self.client("https://svc:s3cr3t@api.example.com", transport, token: "s3cr3t-token") { request in
            var components = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
            components.host = "mirror.example.net"
            request.url = try #require(components.url)
        }
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/a", encoding: .query)))
            .value
        let hop = try #require(seen.all.first)
        #expect(hop.host == "mirror.example.net")
        #expect(hop.authorization == nil, "the header credential is dropped")
        #expect(
            hop.user == nil && hop.password == nil,
            "the URL's user-info, a credential issued for api.example.com, reached mirror.example.net")
    }

    @Test("a connection warm-up sends no credential bound to another origin, from the client or its wrapper")
    func warmUpBypassesTheBoundary() async throws {
        let warmed = Collector<(url: URL, headers: HTTPHeaderFields)>()
        let transport = WarmingRecorder(warmed: warmed)
        var headers = HTTPHeaderFields()
        headers.add(name: "Cookie", value: "cdn-session=s3cr3t", origin: Origin(Self.cdn))
        headers.add(name: "X-Cdn-Secret", value: "s3cr3t", sensitive: true, origin: Origin(Self.cdn))
        headers.add(name: "X-Trace", value: "t")

        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: transport)
        try await client.warmConnections(1, headers: headers)
        _ = try await RedirectingHTTPClient(transport).warmConnections(1, to: Self.api, headers: headers)

        #expect(warmed.all.count == 2)
        for (url, sent) in warmed.all {
            let destination = Origin(url)
            let leaked = sent.filter { $0.carriesCredential && ($0.origin ?? destination) != destination }
            #expect(leaked.isEmpty, "\(leaked.map(\.name)) bound to cdn.example.net sent to \(url)")
        }
    }
}

/// Records every warm-up it is asked for, as the transport that then sends `HEAD` requests with those headers.
private struct WarmingRecorder: HTTPClient {
    let warmed: Collector<(url: URL, headers: HTTPHeaderFields)>

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        HTTPDataResponse(status: 204, url: request.url)
    }

    func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields) async throws -> ConnectionWarmUp {
        warmed.append((url, headers))
        return ConnectionWarmUp(answered: count, opened: count)
    }
}
