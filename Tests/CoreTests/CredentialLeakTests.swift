import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingLogging
@testable import RestingPagination

/// Where a credential could escape — a followed link, a redirect, a log line, a cURL command, a recording —
/// it either stays within its origin or is hidden.
@Suite("Credentials stay within their origin and out of logs")
struct CredentialLeakTests {
    struct Item: Codable, Sendable { let id: Int }

    /// A transport that answers every page with one item and the `Link` the test gives for its path, and
    /// records the URL and credential of every request.
    final class LinkingServer: Sendable {
        let seen = Collector<(url: String, credential: String?)>()
        let links: [String: String]

        init(links: [String: String]) { self.links = links }

        var transport: ClosureHTTPClient {
            ClosureHTTPClient { [self] request in
                seen.append((request.url.absoluteString, request.headers["Authorization"]))
                var headers: HTTPHeaderFields = ["Content-Type": "application/json"]
                if let link = links[request.url.absoluteString] { headers["Link"] = "<\(link)>; rel=\"next\"" }
                return HTTPDataResponse(
                    status: 200, headers: headers, body: ResponseBody(Data(#"[{"id":1}]"#.utf8)), url: request.url)
            }
        }
    }

    private func walk(_ server: LinkingServer, _ pagination: Pagination) async -> (pages: Int, error: RestingError?) {
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: server.transport,
            interceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        var pages = 0
        do {
            for try await _ in client.pages(
                of: Endpoint<Nothing, [Item]>(.get, "/items", encoding: .query), pagination: pagination)
            {
                pages += 1
            }
            return (pages, nil)
        } catch {
            return (pages, error as? RestingError)
        }
    }

    @Test("a next-page link to another host is refused after the page that named it, and the host sees nothing")
    func paginationRefusesOtherOrigins() async {
        let server = LinkingServer(links: ["https://api.example.com/items": "https://evil.example.net/steal"])
        let (pages, error) = await walk(server, .linkHeader)
        #expect(pages == 1)
        guard case .invalidURL(let url, let reason) = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(url.contains("evil.example.net") && reason.contains("another origin"))
        #expect(server.seen.all.map(\.url) == ["https://api.example.com/items"])
    }

    @Test("a next-page link from HTTPS to HTTP is refused even on the same host, and even when the host is trusted")
    func paginationNeverDowngrades() async {
        let server = LinkingServer(links: ["https://api.example.com/items": "http://api.example.com/items?page=2"])
        for pagination in [Pagination.linkHeader, .linkHeaderTrusting(["api.example.com"])] {
            let (pages, error) = await walk(server, pagination)
            #expect(pages == 1)
            guard case .invalidURL(_, let reason) = error else {
                Issue.record("expected invalidURL")
                continue
            }
            #expect(reason.contains("HTTPS"))
        }
        #expect(!server.seen.all.contains { $0.url.hasPrefix("http:") })
    }

    @Test("same-origin links are followed; another host only when trusted, over HTTPS")
    func paginationFollowsSameOriginAndTrustedHosts() async {
        let server = LinkingServer(links: [
            "https://api.example.com/items": "/items?page=2",
            "https://api.example.com/items?page=2": "https://cdn.example.com/items?page=3",
        ])
        let sameOriginOnly = await walk(server, .linkHeader)
        #expect(sameOriginOnly.pages == 2 && sameOriginOnly.error != nil)
        let trusting = await walk(server, .linkHeaderTrusting(["cdn.example.com"]))
        #expect(trusting.pages == 3 && trusting.error == nil)
        #expect(server.seen.all.last?.url == "https://cdn.example.com/items?page=3")
    }

    @Test(
        "a redirect to another origin or to HTTP drops every credential header: listed names, the auth interceptor's own, marked ones"
    )
    func redirectsDropEveryCredential() async throws {
        for target in [
            "https://other.example.com/landing", "http://api.example.com/landing",
            "https://api.example.com:8443/landing",
        ] {
            let stub = StubHTTPClient { received in
                received.request.url.path == "/start" ? .status(302, headers: ["Location": target]) : .status(200)
            }
            let headerProvider = RestingHeaderProvider()
            headerProvider.addHeader(key: "X-Tenant-Secret", value: "s3cr3t-tenant", sensitive: true)
            let client = RestingClient(
                baseUrl: "https://api.example.com", httpClient: stub,
                requestConverter: RestingRequestConverter(configuration: .init(headerProvider: headerProvider)),
                interceptors: [AuthInterceptor(provider: FixedCredential("s3cr3t-custom"), headerName: "X-Custom-Auth")]
            )
            let request = RestingRequest(
                endpoint: Endpoint<Nothing, Nothing>(.get, "/start", encoding: .query),
                headers: ["X-Api-Key": "s3cr3t-key", "X-Trace": "kept"])
            _ = try await client.perform(request).value
            let hops = stub.received.map(\.request)
            #expect(hops.count == 2)
            #expect(hops[0].headers["X-Custom-Auth"] == "s3cr3t-custom" && hops[0].headers["X-Tenant-Secret"] != nil)
            for name in ["X-Custom-Auth", "X-Api-Key", "X-Tenant-Secret"] {
                #expect(hops[1].headers[name] == nil, "\(name) followed the redirect to \(target)")
            }
            #expect(hops[1].headers["X-Trace"] == "kept")
        }
    }

    @Test("a same-origin redirect keeps the credentials")
    func sameOriginRedirectKeepsCredentials() async throws {
        let stub = StubHTTPClient { received in
            received.request.url.path == "/start" ? .status(307, headers: ["Location": "/next"]) : .status(200)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [AuthInterceptor(provider: FixedCredential("s3cr3t"), headerName: "X-Custom-Auth")])
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/start", encoding: .query))
        ).value
        #expect(stub.received.map { $0.request.headers["X-Custom-Auth"] } == ["s3cr3t", "s3cr3t"])
    }

    @Test(
        "the auth interceptor's header, whatever its name, and an API-key header never reach a verbose log or a cURL command"
    )
    func customCredentialHeadersAreRedacted() async throws {
        let stub = StubHTTPClient { received in
            .status(200, headers: ["Location": "https://api.example.com/next?token=s3cr3t#access_token=s3cr3t"])
        }
        let logger = CollectingLogger()
        let described = Collector<String>()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [
                AuthInterceptor(provider: FixedCredential("s3cr3t"), headerName: "X-Custom-Auth"),
                RequestRewriter { request in
                    described.append(request.cURLDescription())
                    described.append(request.description)
                    return request
                },
                LoggingInterceptor(level: .verbose, logger: logger),
            ])
        let request = RestingRequest(
            endpoint: Endpoint<Nothing, Nothing>(.get, "/me", encoding: .query),
            headers: ["X-Api-Key": "s3cr3t"])
        _ = try await client.perform(request).value
        let printed = logger.messages.all + described.all
        #expect(printed.count == 4)
        for text in printed { #expect(!text.contains("s3cr3t"), "\(text)") }
        #expect(logger.messages.all.joined().contains("X-Custom-Auth: <redacted>"))
    }

    @Test("form bodies are redacted: an OAuth password grant shows neither password nor client secret")
    func formBodiesAreRedacted() {
        let form = Data(
            "grant_type=password&username=ann&password=s3cr3t&client_secret=s3cr3t&client%5Fsecret=s3cr3t".utf8)
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://h/token")!,
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: .bytes(form))
        let command = request.cURLDescription()
        #expect(!command.contains("s3cr3t"), "\(command)")
        #expect(command.contains("grant_type=password&username=ann&password=<redacted>"))
        let printed = RedactionPolicy.default.printableBody(form, contentType: "application/x-www-form-urlencoded")
        #expect(printed?.contains("s3cr3t") == false)
    }

    @Test("redaction fails closed: a body it cannot parse is described, never printed")
    func unparseableBodiesAreNotPrinted() async {
        for body in [#"{"password": "s3cr3t", oops}"#, "password s3cr3t", #""s3cr3t""#] {
            let data = Data(body.utf8)
            #expect(RedactionPolicy.default.printableBody(data, contentType: "application/json") == nil, "\(body)")
            let command = HTTPRequest(
                method: .post, url: URL(string: "https://h/")!, headers: ["Content-Type": "application/json"],
                body: .bytes(data)
            ).cURLDescription()
            #expect(!command.contains("s3cr3t") && command.contains("cannot be redacted"), "\(command)")
        }
        #expect(
            RedactionPolicy.none.printableBody(Data("plain".utf8), contentType: nil) == "plain",
            "a policy hiding nothing shows all")
    }

    @Test(
        "keys are matched however an encoder spells them: camelCase, kebab-case, any case, and names containing a secret word"
    )
    func keySpellings() {
        let body = Data(
            #"{"accessToken":"s3cr3t","refreshToken":"s3cr3t","clientSecret":"s3cr3t","Api-Key":"s3cr3t","userPassword":"s3cr3t","name":"ann"}"#
                .utf8)
        let printed = RedactionPolicy.default.printableBody(body, contentType: "application/json")
        #expect(printed?.contains("s3cr3t") == false)
        #expect(printed?.contains(#""name":"ann""#) == true)
    }

    @Test(
        "URLs: percent-encoded parameter names, fragments and user-info are hidden; a Location header's URL is redacted"
    )
    func urlsAreRedacted() {
        let policy = RedactionPolicy.default
        let url = URL(
            string: "https://me:pw@h/cb?access%5Ftoken=s3cr3t&ACCESS_TOKEN=s3cr3t&page=2#access_token=s3cr3t&state=x")!
        let printed = policy.url(url)
        #expect(!printed.contains("s3cr3t") && !printed.contains("pw"), "\(printed)")
        #expect(printed.contains("page=2"))
        let location = HTTPHeaderFields.Field(name: "Location", value: "/next?token=s3cr3t&page=3")
        #expect(policy.value(ofHeader: location) == "/next?token=<redacted>&page=3")
    }

    @Test("a failed refresh is remembered: later 401s with the same credential neither refresh again nor report again")
    func failedRefreshIsRemembered() async throws {
        let failures = Collector<String>()
        let tokens = RotatingTokens(fails: true)
        let client = RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { _ in HTTPDataResponse(status: 401) },
            interceptors: [AuthInterceptor(provider: tokens) { error in failures.append("\(error)") }])
        for _ in 1...3 {
            let error = await restingError {
                try await client.perform(
                    RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/me", encoding: .query))
                ).value
            }
            guard case .httpError(let http) = error else {
                Issue.record("expected the 401, got \(String(describing: error))")
                continue
            }
            #expect(http.status == 401)
        }
        #expect(tokens.refreshes.all.count == 1)
        #expect(failures.all.count == 1)
    }
}
