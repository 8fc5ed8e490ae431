import Foundation
import RestingKit

extension Demo {
    struct Login: Encodable, Sendable {
        let user: String
        let password: String
    }

    struct SessionUser: Decodable, Sendable { let user: String }

    struct CachedResource: Decodable, Sendable {
        let key: String
        let version: Int
    }

    /// Prints each exchange on the wire: every hop of a redirect, every revalidation.
    struct WireLogger: RestingInterceptor {
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            let response = try await execution(request)
            print(
                "    on the wire: \(request.method) \(request.url.path) → \(response.status)"
                    + (request.headers["Cookie"] == nil ? "" : " (with the session cookie)"))
            return response
        }
    }

    func httpSemantics() async throws {
        section("12. HTTP semantics: a cookie session across a redirect, an HTTP cache, per-request options")
        let jar = InMemoryCookieJar()
        let cache = HTTPCacheInterceptor(store: MemoryCacheStore())
        let client = RestingClient(
            baseUrl: baseUrl, httpClient: transport,
            networkInterceptors: [CookieInterceptor(jar: jar), cache, WireLogger()])

        let login = Endpoint<Login, SessionUser>(.post, "/session/login-redirect", encoding: .json)
        let user = try await client.perform(
            RestingRequest(endpoint: login, body: Login(user: "ada", password: "secret"))
        ).value.body
        print("  POST /session/login-redirect → signed in as \(user.user); the jar holds \(jar.allCookies)")
        try check(
            user.user == "ada" && jar.allCookies.count == 1, "the session cookie set on the 302 reached /session/me")

        let key = UUID().uuidString.prefix(8)
        let resource = Endpoint<Nothing, CachedResource>(.get, "/cache/\(key)?max_age=60&etag=1", encoding: .query)
        let first = try await client.perform(RestingRequest(endpoint: resource)).value
        let second = try await client.perform(RestingRequest(endpoint: resource)).value
        var reload = RestingRequest(endpoint: resource)
        reload.attributes.cachePolicy = .reloadIgnoringCache
        let reloaded = try await client.perform(reload).value
        print(
            "  GET /cache/\(key) three times → cache \(first.cacheStatus?.rawValue ?? "-"), "
                + "\(second.cacheStatus?.rawValue ?? "-") (no request), \(reloaded.cacheStatus?.rawValue ?? "-") (reload asked for)"
        )
        try check(
            first.cacheStatus == .miss && second.cacheStatus == .hit && reloaded.cacheStatus == .miss,
            "a fresh response is served from the cache")
    }
}
