import Foundation
import RestingCore
import Testing

extension TransportConformance {
    /// 301/302 turn a POST into a GET without body, 303 always does, 307/308 keep method and body.
    public func redirectMethodsAndBodies() async throws {
        let body = Data("redirected body".utf8)
        let expectations: [(Int, String, Int)] = [
            (301, "GET", 0), (302, "GET", 0), (303, "GET", 0), (307, "POST", body.count), (308, "POST", body.count),
        ]
        for (status, method, length) in expectations {
            let target = "/redirect/\(status)?to=%2Fecho%2Fafter"
            let request = HTTPRequest(
                method: .post, url: try url(target), headers: ["Content-Type": "text/plain"], body: .bytes(body))
            let echoed = try await echo(request)
            #expect(echoed.path == "/echo/after", "\(name): \(status)")
            #expect(
                echoed.method == method && echoed.bodyLength == length,
                "\(name): \(status) → \(echoed.method) with \(echoed.bodyLength) bytes")
        }
        let put = HTTPRequest(method: .put, url: try url("/redirect/302?to=%2Fecho"), body: .bytes(body))
        let echoed = try await echo(put)
        #expect(echoed.method == "PUT" && echoed.bodyLength == body.count, "\(name): a 302 keeps PUT and its body")
    }

    /// A chain within the limit is followed; past it, and in a loop, the call fails with a typed error.
    public func redirectLimitsAndLoops(maximumRedirects: Int = 10) async throws {
        let followed = try await echo(HTTPRequest(method: .get, url: url("/chain/3")))
        #expect(followed.path == "/chain/0", "\(name)")
        let tooMany = await failure {
            try await send(HTTPRequest(method: .get, url: url("/chain/\(maximumRedirects + 1)")))
        }
        guard case .transportFailed(let limit) = tooMany, limit.kind == .tooManyRedirects else {
            Issue.record("\(name): expected tooManyRedirects, got \(String(describing: tooMany))")
            return
        }
        let loop = await failure { try await send(HTTPRequest(method: .get, url: url("/loop"))) }
        guard case .transportFailed(let looped) = loop, looped.kind == .redirectLoop else {
            Issue.record("\(name): expected redirectLoop, got \(String(describing: loop))")
            return
        }
    }

    /// Credentials go on to the same origin and are dropped on a hop to another one.
    public func redirectCredentials() async throws {
        let credentials: HTTPHeaderFields = [
            "Authorization": "Bearer secret", "Cookie": "session=secret", "X-Other": "kept",
        ]
        let sameOrigin = try await echo(
            HTTPRequest(method: .get, url: url("/redirect/302?to=%2Fecho"), headers: credentials))
        #expect(
            sameOrigin.values(of: "Authorization") == ["Bearer secret"]
                && sameOrigin.values(of: "Cookie") == ["session=secret"], "\(name)")

        var marked = credentials
        marked.add(name: "X-Api-Key", value: "secret")
        marked.add(name: "X-Tenant-Secret", value: "secret", sensitive: true)
        let elsewhere =
            "\(server.scheme)://localhost:\(server.port)/echo".addingPercentEncoding(
                withAllowedCharacters: .alphanumerics) ?? ""
        let crossOrigin = try await echo(
            HTTPRequest(method: .get, url: url("/redirect/307?to=\(elsewhere)"), headers: marked))
        for header in ["Authorization", "Cookie", "X-Api-Key", "X-Tenant-Secret"] {
            #expect(crossOrigin.values(of: header).isEmpty, "\(name): \(header) crossed origins")
        }
        #expect(crossOrigin.values(of: "X-Other") == ["kept"], "\(name)")
    }

    /// A redirect to a scheme other than HTTP(S) is never followed: the 3xx itself is the answer.
    public func redirectSchemes() async throws {
        for target in [
            "file:///etc/passwd", "gopher://127.0.0.1:\(server.port)/", "ftp://127.0.0.1/x", "data:text/plain,hi",
        ] {
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try await send(HTTPRequest(method: .get, url: url("/redirect/302?to=\(encoded)")))
            #expect(response.status == 302, "\(name): \(target) gave \(response.status)")
        }
    }
}
