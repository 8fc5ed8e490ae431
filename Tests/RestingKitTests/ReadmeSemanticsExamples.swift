import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

// The README's HTTP-semantics examples (network interceptors, per-request options, cookies, caching), verbatim
// between the snippet markers, run against image_server.

// snippet: hop-counter
/// Sees every exchange on the wire: each hop of a redirect, a cache's revalidations.
struct HopLogger: RestingInterceptor {
    let hops: Collector<String>
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        let response = try await execution(request)
        hops.append("\(request.method) \(request.url.path) → \(response.status)")
        return response
    }
}
// end snippet

@Suite("README HTTP-semantics examples")
struct ReadmeSemanticsExamples {
    let server: LocalServer
    var baseUrl: String { server.baseURL }

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    struct Hops: Decodable, Sendable { let hops: String }
    struct Login: Encodable, Sendable {
        let user: String
        let password: String
    }
    struct User: Decodable, Sendable { let user: String }
    struct Resource: Decodable, Sendable {
        let key: String
        let version: Int
    }

    @Test("network interceptors see each redirect hop")
    func networkInterceptors() async throws {
        let hops = Collector<String>()
        // snippet: network-interceptors
        let client = RestingClient(
            baseUrl: baseUrl, interceptors: [LoggingInterceptor()],
            networkInterceptors: [HopLogger(hops: hops)])
        let done = Endpoint<Nothing, Hops>(.get, "/hops/{{n}}")
        _ = try await client.perform(RestingRequest(endpoint: done, pathVariables: ["n": 2])).value
        print(hops.all)  // ["GET /hops/2 → 302", "GET /hops/1 → 302", "GET /hops/0 → 200"]
        // end snippet
        #expect(hops.all == ["GET /hops/2 → 302", "GET /hops/1 → 302", "GET /hops/0 → 200"])
    }

    @Test("per-request options on endpoints and requests")
    func requestOptions() async throws {
        // snippet: request-options
        let tolerant = JSONDecoder()
        tolerant.dateDecodingStrategy = .secondsSince1970
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query, decoder: tolerant)
            .setting(\.maximumAttempts, 5)  // retried more than the policy says
        var request = RestingRequest(endpoint: getPost, pathVariables: ["id": 1])
        request.attributes.logLevel = .verbose  // this call only
        request.attributes.cachePolicy = .reloadIgnoringCache

        let client = RestingClient(
            baseUrl: baseUrl, interceptors: [RetryInterceptor(), LoggingInterceptor(level: .error)])
        let post = try await client.perform(request).value.body

        client.baseUrl = baseUrl + "/"  // switch environments; calls in flight keep theirs
        // end snippet
        #expect(post.id == 1)
        #expect(
            try await client.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 2])).value.body.id == 2)
    }

    @Test("custom attributes")
    func customAttribute() throws {
        // snippet: custom-attribute
        enum TenantKey: RequestAttributeKey { static let defaultValue: String? = nil }

        struct TenantInterceptor: RestingInterceptor {
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                var request = request
                if let tenant = request.attributes[TenantKey.self] { request.headers["X-Tenant"] = tenant }
                return try await execution(request)
            }
        }
        var request = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.delete, "/posts/1"))
        request.attributes[TenantKey.self] = "acme"
        // end snippet
        #expect(request.attributes[TenantKey.self] == "acme")
        _ = TenantInterceptor()
    }

    @Test("a cookie session")
    func cookies() async throws {
        let appSupport = FileManager.default.temporaryDirectory.appendingPathComponent("readme-cookies-\(UUID())")
        defer { try? FileManager.default.removeItem(at: appSupport) }
        // snippet: cookies
        // or InMemoryCookieJar():
        let jar = try PersistentCookieJar(directory: appSupport.appendingPathComponent("cookies"))
        let client = RestingClient(baseUrl: baseUrl, networkInterceptors: [CookieInterceptor(jar: jar)])

        let login = Endpoint<Login, User>(.post, "/session/login", encoding: .json)
        let me = Endpoint<Nothing, User>(.get, "/session/me")
        _ = try await client.perform(RestingRequest(endpoint: login, body: Login(user: "ada", password: "secret")))
            .value
        let user = try await client.perform(RestingRequest(endpoint: me)).value.body  // sends the session cookie
        print(user.user, jar.allCookies)  // ada [session=<redacted>; host=127.0.0.1; path=/]
        // end snippet
        #expect(user.user == "ada")
    }

    @Test("an HTTP cache")
    func cache() async throws {
        let caches = FileManager.default.temporaryDirectory.appendingPathComponent("readme-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: caches) }
        let key = UUID().uuidString
        // snippet: http-cache
        let cache = HTTPCacheInterceptor(store: try DiskCacheStore(directory: caches, capacity: 50 << 20))
        let client = RestingClient(baseUrl: baseUrl, networkInterceptors: [cache])
        let resource = Endpoint<Nothing, Resource>(.get, "/cache/{{key}}?max_age=3600&etag=1")

        let first = try await client.perform(RestingRequest(endpoint: resource, pathVariables: ["key": key])).value
        let second = try await client.perform(RestingRequest(endpoint: resource, pathVariables: ["key": key])).value
        if second.cacheStatus == .hit { print("the second call never left the process") }

        var offline = RestingRequest(endpoint: resource, pathVariables: ["key": key])
        offline.attributes.cachePolicy = .returnCacheDontLoad  // the cache or a 504, never the network
        // end snippet
        #expect(first.cacheStatus == .miss && second.cacheStatus == .hit)
        #expect(try await client.perform(offline).value.cacheStatus == .hit)
    }
}
