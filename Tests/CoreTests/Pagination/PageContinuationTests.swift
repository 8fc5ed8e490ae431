import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingPagination

/// Every page is the same call continued: the endpoint's attributes, the headers, the base URL it began with.
@Suite("Pages continue their call")
struct PageContinuationTests {
    struct Item: Codable, Sendable { let id: Int }

    /// Answers every list request with one item; `/items` links to `/items?page=2`, which is the last.
    func server(_ seen: Collector<HTTPRequest>) -> ClosureHTTPClient {
        ClosureHTTPClient { request in
            seen.append(request)
            var headers: HTTPHeaderFields = ["Content-Type": "application/json"]
            if request.url.query == nil { headers["Link"] = "</items?page=2>; rel=\"next\"" }
            return HTTPDataResponse(
                status: 200, headers: headers, body: ResponseBody(Data(#"[{"id":1}]"#.utf8)), url: request.url)
        }
    }

    @Test("a page reached by a link keeps the endpoint's attributes and the headers: no token where none is needed")
    func linkedPagesKeepAttributesAndHeaders() async throws {
        let seen = Collector<HTTPRequest>()
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: server(seen),
            interceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        let list = Endpoint<Nothing, [Item]>(.get, "/items", encoding: .query)
            .setting(\.requiresAuthentication, false)
            .setting(\.cachePolicy, .reloadIgnoringCache)
        var pages = 0
        for try await _ in client.pages(of: list, headers: ["X-Client": "feed"], pagination: .linkHeader) { pages += 1 }
        #expect(pages == 2)
        #expect(seen.all.map { $0.headers["Authorization"] } == [nil, nil])
        #expect(seen.all.map { $0.headers["X-Client"] } == ["feed", "feed"])
        #expect(seen.all.allSatisfy { $0.attributes.cachePolicy == .reloadIgnoringCache })
    }

    @Test("every page goes to the base URL the iteration began with, even after the client switched")
    func pagesKeepTheirBaseURL() async throws {
        let seen = Collector<HTTPRequest>()
        let client = RestingClient(baseUrl: "https://api.example.com", httpClient: server(seen))
        let list = Endpoint<Nothing, [Item]>(.get, "/items", encoding: .query)
        for try await _ in client.pages(of: list, pagination: .pageNumber(pageSize: 1)) {
            if seen.all.count == 3 { break }
            client.baseUrl = "https://staging.example.com"
        }
        #expect(seen.all.map { $0.url.host } == ["api.example.com", "api.example.com", "api.example.com"])
    }
}
