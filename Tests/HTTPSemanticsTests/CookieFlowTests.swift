import Foundation
import RestingCookies
import RestingCore
import RestingServerHarness
import Testing

/// A session-cookie login as an app does it, identical on every transport: the cookie flows only through the
/// jar (URLSession's own cookie handling is off), is set on a 302 hop and sent on the next.
@Suite("Cookie sessions on every transport", .timeLimit(.minutes(5)))
struct CookieFlowTests {
    struct Login: Encodable, Sendable {
        let user: String
        let password: String
    }
    struct User: Decodable, Sendable, Equatable { let user: String }

    let login = Endpoint<Login, User>(.post, "/session/login", encoding: .json)
    let loginRedirect = Endpoint<Login, User>(.post, "/session/login-redirect", encoding: .json)
    let me = Endpoint<Nothing, User>(.get, "/session/me", encoding: .query)
    let logout = Endpoint<Nothing, Nothing>(.post, "/session/logout", encoding: .json)

    func status<T>(_ call: () async throws -> T) async -> Int? {
        do {
            _ = try await call()
            return 200
        } catch RestingError.httpError(let error) {
            return error.status
        } catch {
            Issue.record("expected an HTTP status, got \(error)")
            return nil
        }
    }

    @Test("log in, be recognised, log out, be forgotten", arguments: Transport.allCases)
    func loginSession(_ transport: Transport) async throws {
        let jar = InMemoryCookieJar()
        let client = try await transport.client(networkInterceptors: [CookieInterceptor(jar: jar)])
        #expect(await status { try await client.perform(RestingRequest(endpoint: me)).value } == 401)
        let user = try await client.perform(
            RestingRequest(endpoint: login, body: Login(user: "ada", password: "secret"))
        ).value.body
        #expect(user == User(user: "ada"))
        #expect(jar.allCookies.map(\.name) == ["session"])
        #expect(try await client.perform(RestingRequest(endpoint: me)).value.body == User(user: "ada"))
        _ = try await client.perform(RestingRequest(endpoint: logout)).value
        #expect(jar.allCookies.isEmpty, "Max-Age=0 deleted it")
        #expect(await status { try await client.perform(RestingRequest(endpoint: me)).value } == 401)
    }

    @Test("a cookie set on a 302 hop is stored before the next hop, which sends it", arguments: Transport.allCases)
    func cookieOnRedirectHop(_ transport: Transport) async throws {
        struct Hops: RestingInterceptor {
            let seen: Locked<[String]>
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                let response = try await execution(request)
                seen.withLock {
                    $0.append(
                        "\(request.method) \(request.url.path) cookie=\(request.headers["Cookie"] != nil) → \(response.status)"
                    )
                }
                return response
            }
        }
        let seen = Locked<[String]>([])
        let jar = InMemoryCookieJar()
        // Hops first: it sees each hop as sent, with the jar's cookie.
        let client = try await transport.client(networkInterceptors: [CookieInterceptor(jar: jar), Hops(seen: seen)])
        let user = try await client.perform(
            RestingRequest(endpoint: loginRedirect, body: Login(user: "grace", password: "secret"))
        ).value.body
        #expect(user == User(user: "grace"))
        #expect(
            seen.withLock { $0 } == [
                "POST /session/login-redirect cookie=false → 302", "GET /session/me cookie=true → 200",
            ])
    }

    @Test("without a jar no transport keeps cookies: URLSession's own storage is off", arguments: Transport.allCases)
    func noJarNoCookies(_ transport: Transport) async throws {
        let client = try await transport.client(networkInterceptors: [])
        _ = try await client.perform(RestingRequest(endpoint: login, body: Login(user: "ada", password: "secret")))
            .value
        #expect(await status { try await client.perform(RestingRequest(endpoint: me)).value } == 401)
    }

    @Test(
        "several cookies in one response survive a transport that joins repeated headers", arguments: Transport.network)
    func repeatedSetCookie(_ transport: Transport) async throws {
        struct Echo: Decodable, Sendable { let cookies: [String: String] }
        let jar = InMemoryCookieJar()
        let client = try await transport.client(networkInterceptors: [CookieInterceptor(jar: jar)])
        let set = Endpoint<Nothing, Nothing>(
            .get, "/cookies/set?a=1&b=2&_attrs=Path%3D%2F%3B%20Expires%3DWed%2C%2001%20Jan%202100%2000%3A00%3A00%20GMT",
            encoding: .query)
        _ = try await client.perform(RestingRequest(endpoint: set)).value
        #expect(jar.allCookies.map(\.name).sorted() == ["a", "b"])
        #expect(jar.allCookies.allSatisfy { $0.isPersistent })
        let echo = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Echo>(.get, "/cookies/echo", encoding: .query))
        ).value
        #expect(echo.body.cookies == ["a": "1", "b": "2"])
    }
}
