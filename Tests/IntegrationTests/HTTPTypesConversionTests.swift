#if HTTPTypes
import Foundation
import HTTPTypes
import RestingCore
import RestingHTTPTypes
import Testing

@Suite("swift-http-types conversions")
struct HTTPTypesConversionTests {
    @Test("headers keep their order, repeats and spelling, and a credential stays sensitive both ways")
    func headersRoundTrip() throws {
        var headers: HTTPHeaderFields = ["Accept": "application/json", "Authorization": "Bearer secret"]
        headers.add(name: "X-Session", value: "opaque", sensitive: true)
        headers.add(name: "Accept", value: "text/plain")
        let fields = try HTTPFields(headers)
        #expect(fields.map(\.name.rawName) == ["Accept", "Authorization", "X-Session", "Accept"])
        #expect(fields.map(\.indexingStrategy) == [.automatic, .disallow, .disallow, .automatic])
        let back = HTTPHeaderFields(fields)
        #expect(back == headers)
        #expect(back.map(\.carriesCredential) == [false, true, true, false])
        #expect(!back.description.contains("opaque") && !back.description.contains("secret"))
    }

    @Test(
        "a field swift-http-types would silently change is refused instead",
        arguments: [
            ("X-Injected", "a\r\nSet-Cookie: b"), ("X-Nul", "a\u{0}b"), ("Bad Name", "value"), ("", "value"),
        ])
    func invalidFields(name: String, value: String) {
        let headers = HTTPHeaderFields([(name, value)])
        #expect {
            try HTTPFields(headers)
        } throws: { error in
            guard case RestingError.invalidHeader(let refused, _) = error else { return false }
            return refused == name
        }
    }

    @Test("a request's head: method, scheme, authority with its port, and the path with its query, encoded as sent")
    func requestHead() throws {
        let request = RestingCore.HTTPRequest(
            method: .patch, url: URL(string: "HTTPS://api.example.com:8443/posts/a%20b?tag=x%26y&page=2")!,
            headers: ["Authorization": "Bearer t"])
        let head = try HTTPTypes.HTTPRequest(request)
        #expect(head.method == .patch)
        #expect(head.scheme == "https")
        #expect(head.authority == "api.example.com:8443")
        #expect(head.path == "/posts/a%20b?tag=x%26y&page=2")
        #expect(head.headerFields[.authorization] == "Bearer t")

        let back = try RestingCore.HTTPRequest(head, body: .bytes(Data("{}".utf8)))
        #expect(back.method == .patch)
        #expect(back.url.absoluteString == "https://api.example.com:8443/posts/a%20b?tag=x%26y&page=2")
        #expect(back.headers.map(\.carriesCredential) == [true])
        #expect(back.body.contentLength == 2)
    }

    @Test("an empty path is '/', an IPv6 literal keeps its brackets, a custom method travels")
    func requestHeadEdges() throws {
        let bare = try HTTPTypes.HTTPRequest(
            RestingCore.HTTPRequest(method: "PURGE", url: URL(string: "http://[::1]:8080")!))
        #expect(bare.method.rawValue == "PURGE")
        #expect(bare.authority == "[::1]:8080")
        #expect(bare.path == "/")
    }

    @Test("what has no request head is refused with a typed error, never a trap")
    func requestHeadRefusals() {
        #expect {
            try HTTPTypes.HTTPRequest(
                RestingCore.HTTPRequest(method: .get, url: URL(string: "https://user:pass@example.com/")!))
        } throws: { error in
            guard case RestingError.invalidURL(let url, _) = error else { return false }
            return !url.contains("pass")
        }
        #expect(throws: RestingError.self) {
            try HTTPTypes.HTTPRequest(RestingCore.HTTPRequest(method: .get, url: URL(string: "file:///etc/passwd")!))
        }
        #expect(throws: RestingError.self) {
            try HTTPTypes.HTTPRequest(RestingCore.HTTPRequest(method: "BAD METHOD", url: URL(string: "https://a.b/")!))
        }
        let connect = HTTPTypes.HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil)
        #expect(throws: RestingError.self) { try RestingCore.HTTPRequest(connect) }
        let ftp = HTTPTypes.HTTPRequest(method: .get, scheme: "ftp", authority: "example.com", path: "/")
        #expect(throws: RestingError.self) { try RestingCore.HTTPRequest(ftp) }
    }

    @Test(
        "a head whose path or authority would send it to another host, port or user is refused, never sent there",
        arguments: [
            ("api.example.com", "@evil.example/x"), ("api.example.com", ":8443/x"), ("api.example.com", "evil/x"),
            ("api.example.com", "/x#fragment"), ("user:pass@api.example.com", "/x"), ("api.example.com", ""),
            ("api.example.com/evil", "/x"), ("api.example.com", "/x y"),
        ])
    func requestHeadThatWouldMove(authority: String, path: String) {
        let head = HTTPTypes.HTTPRequest(
            method: .get, scheme: "https", authority: authority, path: path,
            headerFields: [.authorization: "Bearer secret"])
        #expect {
            try RestingCore.HTTPRequest(head)
        } throws: { error in
            guard case RestingError.invalidURL(let url, _) = error else { return false }
            return !url.contains("pass") && !url.contains("secret")
        }
    }

    @Test(
        "a head goes to its own authority, port and path exactly", arguments: ["/", "/a/b?c=d&e", "//x", "/@x", "/:1"])
    func requestHeadStaysAtItsAuthority(path: String) throws {
        let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "API.example.com:8443", path: path)
        let request = try RestingCore.HTTPRequest(head)
        #expect(Origin(request.url) == Origin(URL(string: "https://api.example.com:8443")!))
        #expect(try HTTPTypes.HTTPRequest(request).path == path)
    }

    @Test("a response's head both ways; a status outside 100–999 is refused")
    func responseHead() throws {
        let response = HTTPDataResponse(
            status: 503, headers: ["Retry-After": "3", "Set-Cookie": "id=1"], body: ResponseBody(Data("busy".utf8)))
        let head = try HTTPTypes.HTTPResponse(response)
        #expect(head.status.code == 503)
        #expect(head.headerFields[.retryAfter] == "3")
        #expect(head.headerFields.first { $0.name == .setCookie }?.indexingStrategy == .disallow)

        let back = HTTPDataResponse(head, body: ResponseBody(Data("busy".utf8)))
        #expect(back.status == 503)
        #expect(back.headers == response.headers)
        #expect(back.body.data == Data("busy".utf8))
        #expect(throws: RestingError.self) { try HTTPTypes.HTTPResponse(HTTPDataResponse(status: 1000)) }
    }
}
#endif
