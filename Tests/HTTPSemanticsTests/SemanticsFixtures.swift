import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTesting
import RestingURLSession
import Testing

/// The transports every HTTP-semantics test runs on; `stub` answers from ``SessionStub``, a copy of image_server's
/// session routes, so that the cookie flow is shown identical on all three.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl, urlSession, stub

    var testDescription: String { rawValue }

    static let network: [Transport] = [.curl, .urlSession]

    private static let curlClient = Result { try CurlClient() }
    private static let urlSessionClient = URLSessionClient()

    /// A client of image_server (or of the stub) with `networkInterceptors`.
    func client(interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor]) async throws
        -> RestingClient
    {
        let (baseUrl, transport): (String, any HTTPClient) =
            switch self {
            case .curl: (try await LocalServer.sharedImageServer.value.baseURL, try Self.curlClient.get())
            case .urlSession: (try await LocalServer.sharedImageServer.value.baseURL, Self.urlSessionClient)
            case .stub: ("https://stub.example.com", SessionStub.make())
            }
        return RestingClient(
            baseUrl: baseUrl, httpClient: transport, interceptors: interceptors,
            networkInterceptors: networkInterceptors)
    }
}

/// image_server's `/session/...` routes as a stub: login sets a session cookie (directly, or on a 302 to
/// `/session/me`), `me` answers 401 without it, logout deletes it.
enum SessionStub {
    static func make() -> StubHTTPClient {
        let sessions = Locked<[String: String]>([:])
        return StubHTTPClient(fallback: { received in
            let request = received.request
            let cookies = Dictionary(
                (request.headers["Cookie"] ?? "").split(separator: ";").compactMap { pair -> (String, String)? in
                    let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    return parts.count == 2 ? (parts[0], parts[1]) : nil
                }, uniquingKeysWith: { _, last in last })
            switch (request.method, request.url.path) {
            case (.post, "/session/login"), (.post, "/session/login-redirect"):
                struct Login: Decodable {
                    let user: String
                    let password: String
                }
                guard let login = try? JSONDecoder().decode(Login.self, from: received.body), login.password == "secret"
                else {
                    return .status(401)
                }
                let token = UUID().uuidString
                sessions.withLock { $0[token] = login.user }
                let cookie = "session=\(token); Path=/; HttpOnly"
                guard request.url.path == "/session/login" else {
                    return .status(
                        302, headers: HTTPHeaderFields([("Set-Cookie", cookie), ("Location", "/session/me")]))
                }
                var answer = try StubResponse.json(["user": login.user])
                answer.headers.add(name: "Set-Cookie", value: cookie)
                return answer
            case (.get, "/session/me"):
                guard let user = sessions.withLock({ $0[cookies["session"] ?? ""] }) else { return .status(401) }
                return try .json(["user": user])
            case (.post, "/session/logout"):
                _ = sessions.withLock { $0.removeValue(forKey: cookies["session"] ?? "") }
                return .status(204, headers: ["Set-Cookie": "session=; Path=/; Max-Age=0"])
            default:
                return .status(404)
            }
        })
    }
}
