import Foundation
import Testing

@testable import RestingCore

/// `HTTPRequest` and `HTTPDataResponse` keep their fields in a shared copy-on-write box: these pin that they still
/// behave as plain values, whoever holds a copy and wherever it is changed.
@Suite("Requests and responses are values")
struct ValueSemanticsTests {
    @Test("a request changed through a copy, field by field, leaves the original as it was")
    func requestCopies() throws {
        let url = try #require(URL(string: "https://api.example.com/posts?page=1"))
        let original = HTTPRequest(method: .get, url: url, headers: ["Accept": "application/json"])
        var copy = original
        copy.method = .post
        copy.url = try #require(URL(string: "https://other.example.com/"))
        copy.headers["Authorization"] = "Bearer secret"
        copy.headers["Accept"] = "text/plain"
        copy.body = .bytes(Data("{}".utf8))
        copy.timeout = .seconds(3)
        copy.responseStreaming = ResponseStreaming()
        copy.followsRedirects = false

        #expect(original.method == .get)
        #expect(original.url == url)
        #expect(original.headers["Accept"] == "application/json")
        #expect(original.headers["Authorization"] == nil)
        #expect(original.body.isEmpty)
        #expect(original.timeout == nil)
        #expect(original.responseStreaming == nil)
        #expect(original.followsRedirects)

        #expect(copy.method == .post)
        #expect(copy.url.host == "other.example.com")
        #expect(copy.headers["Authorization"] == "Bearer secret")
        #expect(copy.headers["Accept"] == "text/plain")
        #expect(copy.body.contentLength == 2)
        #expect(copy.timeout == .seconds(3))
        #expect(copy.responseStreaming != nil)
        #expect(!copy.followsRedirects)
    }

    @Test("copies changed on other tasks at once each see only their own change")
    func requestCopiesAcrossTasks() async throws {
        let original = HTTPRequest(method: .get, url: try #require(URL(string: "https://api.example.com/")))
        let tagged = await withTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var copy = original
                    copy.headers["X-Index"] = String(index)
                    return copy.headers["X-Index"]
                }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1 ?? "") }
        }
        #expect(tagged == Set((0..<64).map(String.init)))
        #expect(original.headers.isEmpty)
    }

    @Test("a response changed through a copy leaves the original as it was")
    func responseCopies() throws {
        let original = HTTPDataResponse(status: 200, headers: ["ETag": "\"1\""], body: ResponseBody(Data("first".utf8)))
        var copy = original
        copy.status = 304
        copy.headers["ETag"] = "\"2\""
        copy.body = "first and more"
        copy.url = URL(string: "https://api.example.com/moved")
        copy.cacheStatus = .hit

        #expect(original.status == 200)
        #expect(original.headers["ETag"] == "\"1\"")
        #expect(original.body.data == Data("first".utf8))
        #expect(original.url == nil)
        #expect(original.cacheStatus == nil)

        #expect(copy.status == 304)
        #expect(copy.headers["ETag"] == "\"2\"")
        #expect(copy.body.data == Data("first and more".utf8))
        #expect(copy.url?.path == "/moved")
        #expect(copy.cacheStatus == .hit)
    }
}
